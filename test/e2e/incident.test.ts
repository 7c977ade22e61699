/**
 * The incident the README describes, replayed in the lab with no fencer involved: a partitioned node
 * keeps its EBS volume, the replacement pod is stuck on Multi-Attach, and only the manual cure
 * (power off, then the out-of-service taint) releases it.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../lab/lab.js';
import {
  forceDeletePod,
  manualCure,
  waitForMultiAttach,
  waitForRecovery,
  waitNodeNotReady,
  waitPodTerminating,
} from '../../lab/scenarios/incident.js';
import { attachmentsOf, deployStatefulApp, type StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { describeVolumeAttachments } from '../support/ec2.js';

describe('the Multi-Attach incident, without a fencer', () => {
  let lab: Lab;
  let app: StatefulApp;

  beforeAll(async () => {
    lab = await startLab({ nodes: 2 });
    app = await deployStatefulApp(lab, { onNode: 'node-a' });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('runs the database on node-a with its EBS volume attached to node-a’s instance', async () => {
    const vas = await attachmentsOf(lab, app.pvName);
    expect(vas.get('node-a')?.status?.attached).toBe(true);
    expect(await describeVolumeAttachments(lab, app.volumeId)).toEqual([
      { instanceId: lab.node('node-a').instanceId, state: 'attached' },
    ]);
  });

  it('leaves the pod Terminating when node-a is cut, and after a force delete the replacement hits Multi-Attach', async () => {
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    await waitPodTerminating(lab, app, 'node-a');
    await forceDeletePod(lab, app);

    const { pod, event } = await waitForMultiAttach(lab, app, 'node-a');
    expect(pod.spec?.nodeName).toBe('node-b');
    expect(event.message).toContain('Volume is already exclusively attached to one node');
    expect(pod.status?.phase).toBe('Pending');
    expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ContainerCreating');
  });

  it('stays stuck without the taint: the volume never leaves node-a over a bounded wait (negative control)', async () => {
    await sleep(45_000);
    const vas = await attachmentsOf(lab, app.pvName);
    expect(vas.get('node-a')?.status?.attached).toBe(true);
    expect(vas.get('node-b')?.status?.attached ?? false).toBe(false);
    expect(await describeVolumeAttachments(lab, app.volumeId)).toEqual([
      { instanceId: lab.node('node-a').instanceId, state: 'attached' },
    ]);
    const pod = await lab.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedPod({ name: app.podName, namespace: 'default' });
    expect(pod.status?.phase).toBe('Pending');
    expect(lab.readLog('kube-controller-manager')).not.toContain('force detaching');
  });

  it('recovers with the manual cure: power off node-a’s instance, then taint it out-of-service', async () => {
    await manualCure(lab, 'node-a');
    await waitForRecovery(lab, app, 'node-a', 'node-b');

    const vas = await attachmentsOf(lab, app.pvName);
    expect(vas.has('node-a')).toBe(false);
    expect(vas.get('node-b')?.status?.attached).toBe(true);
    expect(await describeVolumeAttachments(lab, app.volumeId)).toEqual([
      { instanceId: lab.node('node-b').instanceId, state: 'attached' },
    ]);
    expect(lab.readLog('kube-controller-manager')).toContain(
      'node has out-of-service taint, force detaching',
    );
    // The CSI controller unpublished from node-a before it published to node-b.
    const rpcs = lab
      .readLog('csi-controller')
      .split('\n')
      .filter((l) => l.includes('"rpc"'))
      .map((l) => JSON.parse(l) as { rpc: string; node: string; result: string });
    const unpublishA = rpcs.findIndex(
      (r) =>
        r.rpc === 'ControllerUnpublishVolume' &&
        r.node === lab.node('node-a').instanceId &&
        r.result === 'ok',
    );
    const publishB = rpcs.findIndex(
      (r) =>
        r.rpc === 'ControllerPublishVolume' && r.node === lab.node('node-b').instanceId && r.result === 'ok',
    );
    expect(unpublishA).toBeGreaterThanOrEqual(0);
    expect(publishB).toBeGreaterThan(unpublishA);
  });
});
