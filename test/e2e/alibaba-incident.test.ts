/**
 * The incident on Alibaba Cloud, in the Alibaba-flavoured lab (ACK-like nodes, ECS instances and ESSD
 * disks in the ECS emulator, diskplugin.csi.alibabacloud.com), cured by the real `fencer` CLI through
 * the real ECS SDK with signature verification on.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../../lab/lab.js';
import {
  forceDeletePod,
  waitForMultiAttach,
  waitForRecovery,
  waitPodTerminating,
} from '../../lab/scenarios/incident.js';
import { attachmentsOf, type StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { labWithCutNode } from '../support/cut-node.js';
import { diskAttachments, ecsStatus, fencerEcsCalls } from '../support/ecs.js';
import { runFencer } from '../support/fencer-cli.js';
import { fencerWrites, taintsOf } from '../support/lab-waits.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';

describe('the incident on Alibaba Cloud, fenced by `fencer fence`', () => {
  let lab: Lab;
  let app: StatefulApp;

  beforeAll(async () => {
    ({ lab, app } = await labWithCutNode({ provider: 'alibaba' }));
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('runs node-a as an ACK worker: providerID <region>.<instance>, its InternalIP the instance’s private address', async () => {
    const node = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: 'node-a' });
    const a = lab.node('node-a');
    expect(node.spec?.providerID).toBe(`cn-hangzhou.${a.instanceId}`);
    expect(node.status?.addresses).toEqual(
      expect.arrayContaining([
        { type: 'InternalIP', address: a.privateIp },
        { type: 'Hostname', address: a.privateDnsName },
      ]),
    );
    expect(node.metadata?.labels?.['topology.diskplugin.csi.alibabacloud.com/zone']).toBe('cn-hangzhou-i');
    expect(await diskAttachments(lab, app.volumeId)).toEqual([
      { instanceId: a.instanceId, status: 'In_use' },
    ]);
  });

  it('leaves the replacement pod stuck on Multi-Attach while node-a’s instance keeps running', async () => {
    await waitPodTerminating(lab, app, 'node-a');
    await forceDeletePod(lab, app);

    const { pod, event } = await waitForMultiAttach(lab, app, 'node-a');

    expect(pod.spec?.nodeName).toBe('node-b');
    expect(event.message).toContain('Volume is already exclusively attached to one node');
    expect(await ecsStatus(lab, lab.node('node-a').instanceId)).toBe('Running');
    expect(await diskAttachments(lab, app.volumeId)).toEqual([
      { instanceId: lab.node('node-a').instanceId, status: 'In_use' },
    ]);
  });

  it('proves node-a’s instance Stopped through ECS, taints node-a, and the disk moves to node-b', async () => {
    const { code, report, stderr } = await runFencer(lab, [
      'fence',
      'node-a',
      '--lease-grace',
      '40',
      '--output',
      'json',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report?.outcome).toBe('fenced');
    expect(report?.proofOfOff).toMatchObject({
      instanceId: lab.node('node-a').instanceId,
      state: 'stopped',
      providerState: 'Stopped',
    });
    expect(
      report?.steps
        .map((s) => s.action)
        .filter(Boolean)
        .slice(0, 2),
    ).toEqual(['power-off', 'taint']);

    expect(await ecsStatus(lab, lab.node('node-a').instanceId)).toBe('Stopped');
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    await waitForRecovery(lab, app, 'node-a', 'node-b');
    const vas = await attachmentsOf(lab, app.pvName);
    expect(vas.has('node-a')).toBe(false);
    expect(vas.get('node-b')?.status?.attached).toBe(true);
    expect(await diskAttachments(lab, app.volumeId)).toEqual([
      { instanceId: lab.node('node-b').instanceId, status: 'In_use' },
    ]);
  });

  it('moved the disk the safe way: detached from the stopped instance, never force-detached by the driver', () => {
    const entries = lab
      .readLog('csi-controller')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { rpc?: string; event?: string; node?: string; result?: string });
    expect(entries.filter((e) => e.event === 'ForceDetach')).toEqual([]);
    const unpublishA = entries.findIndex(
      (e) =>
        e.rpc === 'ControllerUnpublishVolume' &&
        e.node === lab.node('node-a').instanceId &&
        e.result === 'ok',
    );
    const publishB = entries.findIndex(
      (e) =>
        e.rpc === 'ControllerPublishVolume' && e.node === lab.node('node-b').instanceId && e.result === 'ok',
    );
    expect(unpublishA).toBeGreaterThanOrEqual(0);
    expect(publishB).toBeGreaterThan(unpublishA);
  });

  it('asked ECS only to read and to force the one instance off, signed with its own key', async () => {
    const calls = await fencerEcsCalls(lab);
    const stops = calls.filter((c) => c.action.startsWith('Stop'));
    expect(stops).toHaveLength(1);
    expect(stops[0]?.params).toMatchObject({
      'InstanceId.1': lab.node('node-a').instanceId,
      ForceStop: 'true',
      BatchOptimization: 'SuccessFirst',
      StoppedMode: 'KeepCharging',
    });
    expect(new Set(calls.map((c) => c.action))).toEqual(
      new Set(['DescribeInstances', 'DescribeDisks', 'StopInstances']),
    );
    expect(fencerWrites(lab).filter((w) => w.includes('volumeattachments'))).toEqual([]);
  });
});
