/**
 * The incident, fenced by the real `fencer` CLI (its own process, as user kube-fencer with the
 * RBAC of deploy/rbac.yaml, every request audited), then un-fenced after a power cycle.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeInstanceState } from '../../lab/ec2-emulator.js';
import type { Lab } from '../../lab/lab.js';
import { addTaintByHand, waitForRecovery } from '../../lab/scenarios/incident.js';
import { attachmentsOf, type StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { labWithCutNode } from '../support/cut-node.js';
import { describeVolumeAttachments } from '../support/ec2.js';
import { runFencer } from '../support/fencer-cli.js';
import { fencerWrites, taintsOf, waitNodeReady } from '../support/lab-waits.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';
const FENCE = ['--lease-grace', '40', '--output', 'json'];

describe('the incident, fenced by `fencer fence`', () => {
  let lab: Lab;
  let app: StatefulApp;

  beforeAll(async () => {
    ({ lab, app } = await labWithCutNode());
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('powers node-a off, confirms it stopped, taints it, and the volume moves to node-b', async () => {
    const { code, report, stderr } = await runFencer(lab, ['fence', 'node-a', ...FENCE]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report?.outcome).toBe('fenced');
    expect(report?.proofOfOff).toMatchObject({ instanceId: lab.node('node-a').instanceId, state: 'stopped' });
    const actions = report?.steps.map((s) => s.action).filter(Boolean);
    expect(actions?.slice(0, 2)).toEqual(['power-off', 'taint']);
    expect(actions).not.toContain('delete-volume-attachments');

    expect(await describeInstanceState(lab.ec2.client, lab.node('node-a').instanceId)).toBe('stopped');
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    await waitForRecovery(lab, app, 'node-a', 'node-b');
    const vas = await attachmentsOf(lab, app.pvName);
    expect(vas.has('node-a')).toBe(false);
    expect(vas.get('node-b')?.status?.attached).toBe(true);
    expect(await describeVolumeAttachments(lab, app.volumeId)).toEqual([
      { instanceId: lab.node('node-b').instanceId, state: 'attached' },
    ]);
  });

  it('never deleted a VolumeAttachment itself, and left an audit trail of Events on the node', async () => {
    const writes = fencerWrites(lab);
    expect(writes.filter((w) => w.includes('volumeattachments'))).toEqual([]);
    expect(writes.filter((w) => /^(update|patch) nodes$/.test(w)).length).toBeGreaterThan(0);
    const events = await lab.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.name=node-a' });
    const reasons = events.items.filter((e) => e.reportingComponent === 'kube-fencer').map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['FencingPowerOff', 'FencingTaint', 'FencingFenced']));
  });

  it('keeps the taint while node-a is down', async () => {
    const { code, report } = await runFencer(lab, ['unfence', 'node-a', '--wait', '0', '--output', 'json']);
    expect(code).toBe(3);
    expect(report?.reason).toBe('NodeNotReadyYet');
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
  });

  it('keeps the taint when node-a comes back without a power cycle, and says why', async () => {
    await lab.reconnect('node-a');
    await waitNodeReady(lab, 'node-a');
    const { code, report } = await runFencer(lab, ['unfence', 'node-a', '--wait', '0', '--output', 'json']);
    expect(code).toBe(3);
    expect(report?.reason).toBe('NoPowerCycleSinceFence');
    expect(report?.message).toMatch(/not been started since the fence/);
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
  });

  it('removes its taint once node-a is Ready after a power cycle (a later launch time)', async () => {
    await lab.restore('node-a');
    await waitNodeReady(lab, 'node-a');
    const { code, report } = await runFencer(lab, ['unfence', 'node-a', '--wait', '60', '--output', 'json']);
    expect(code).toBe(0);
    expect(report?.outcome).toBe('unfenced');
    expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
  });

  it('never removes an out-of-service taint it did not add', async () => {
    await addTaintByHand(lab, 'node-b', {
      key: 'node.kubernetes.io/out-of-service',
      value: 'manual',
      effect: 'NoExecute',
    });
    const { code, report } = await runFencer(lab, ['unfence', 'node-b', '--wait', '0', '--output', 'json']);
    expect(code).toBe(3);
    expect(report?.reason).toBe('TaintNotOwned');
    expect(await taintsOf(lab, 'node-b')).toContain('node.kubernetes.io/out-of-service=manual:NoExecute');
  });
});
