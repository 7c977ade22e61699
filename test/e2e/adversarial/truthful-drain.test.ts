/**
 * Adversarial: the report is truthful (SAFETY.md rule 9). A database pod that tolerates the out-of-service
 * taint stays on the fenced node with its volume: Kubernetes will never evict it. The fencer must name it
 * at once and say what to do, not wait out its drain deadline and not claim the node is clear; with the
 * explicit opt-in it force-deletes the pod once the machine is proven off, and the volume moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../../../lab/lab.js';
import { waitForRecovery } from '../../../lab/scenarios/incident.js';
import type { StatefulApp } from '../../../lab/scenarios/stateful-app.js';
import { labWithCutNode } from '../../support/cut-node.js';
import { fence, instanceState, killFencers, OUT_OF_SERVICE, taintsOn } from './support.js';

describe('adversarial: a pod the taint can never evict (SAFETY.md rule 9, truthful drain)', () => {
  let lab: Lab;
  let app: StatefulApp;

  beforeAll(async () => {
    ({ lab, app } = await labWithCutNode({ app: { name: 'keeper', toleratesOutOfService: true } }));
  });
  afterAll(async () => {
    killFencers();
    await lab?.stop();
  });

  it('names the pod at once, with its claim and the next step, instead of waiting out the drain deadline', async () => {
    const { code, report } = await fence(lab, 'node-a');

    expect(report).toMatchObject({ outcome: 'failed', reason: 'PodToleratesOutOfService' });
    expect(report?.message).toContain(`default/${app.podName}`);
    expect(report?.message).toMatch(/grace period 0|force-delete/);
    expect(report?.evidence.join('\n')).toContain(app.pvcName);
    expect(code).toBe(4);
    // It stopped on the first look after the taint: no step waited on the pod.
    expect(report?.steps.filter((s) => s.phase === 'Drain' && !s.done && s.action === null)).toEqual([]);
    // What it did stands: the machine is off, the node is tainted, the pod is still there.
    expect(await instanceState(lab, lab.node('node-a').instanceId)).toBe('stopped');
    expect(await taintsOn(lab, 'node-a')).toContain(OUT_OF_SERVICE);
  });

  it('force-deletes such a pod only when asked, once the machine is proven off, and the volume moves', async () => {
    const { code, report } = await fence(lab, 'node-a', ['--force-delete-tolerating-pods']);

    expect(report?.outcome).toBe('fenced');
    expect(code).toBe(0);
    const deleted = report?.steps.find((s) => s.action === 'force-delete-pods');
    expect(deleted?.actionResult).toContain(`default/${app.podName}`);
    await waitForRecovery(lab, app, 'node-a', 'node-b');
  });
});
