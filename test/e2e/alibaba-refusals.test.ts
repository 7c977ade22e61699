/**
 * Refusals and failures on Alibaba Cloud, in one Alibaba-flavoured lab: a Ready node, an instance
 * without the cluster's tag, a stop that never leaves Stopping, and ECS throttling every call. None of
 * them ever taints a node or lets a VolumeAttachment go.
 */

import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ackInstanceTags } from '../../lab/alibaba-nodes.js';
import { type Lab, startLab } from '../../lab/lab.js';
import { waitNodeNotReady } from '../../lab/scenarios/incident.js';
import { LEASE_GRACE_SECONDS } from '../support/cut-node.js';
import { ecsOf, ecsStatus, fencerEcsCalls } from '../support/ecs.js';
import { runFencer } from '../support/fencer-cli.js';
import { fencerWrites, taintsOf, waitKubeletSilentFor } from '../support/lab-waits.js';

// Two of three nodes are cut by the end; the blast-radius rule is not what these scenarios test.
const FENCE = ['--lease-grace', '40', '--max-unhealthy-fraction', '0.9', '--output', 'json'];

const cutAndWait = async (lab: Lab, node: string) => {
  await lab.cut(node);
  await waitNodeNotReady(lab, node);
  await waitKubeletSilentFor(lab, node, LEASE_GRACE_SECONDS + 1);
};

const outOfServiceTaints = async (lab: Lab): Promise<string[]> => {
  const nodes = await lab.kubeConfig.makeApiClient(CoreV1Api).listNode();
  return nodes.items
    .filter((n) => n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/out-of-service'))
    .map((n) => n.metadata?.name ?? '');
};

describe('refusals and failures on Alibaba Cloud', () => {
  let lab: Lab;

  beforeAll(async () => {
    lab = await startLab({ nodes: 3, provider: 'alibaba' });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('refuses a Ready node, and asks ECS nothing that changes anything', async () => {
    const { code, report } = await runFencer(lab, ['fence', 'node-b', ...FENCE]);
    expect(code).toBe(3);
    expect(report?.reason).toBe('NodeReady');
    expect((await fencerEcsCalls(lab)).filter((c) => !c.action.startsWith('Describe'))).toEqual([]);
  });

  it('refuses an instance that does not carry the cluster’s tag', async () => {
    const a = lab.node('node-a');
    await cutAndWait(lab, 'node-a');
    await ecsOf(lab).admin.patchInstance(a.instanceId, { tags: { 'ack.aliyun.com': 'another-cluster' } });
    try {
      const { code, report } = await runFencer(lab, ['fence', 'node-a', ...FENCE]);
      expect(code).toBe(3);
      expect(report?.reason).toBe('InstanceNotOwned');
      expect(report?.evidence.join('\n')).toMatch(
        /lacks tag ack.aliyun.com=lab.*has ack.aliyun.com=another-cluster/,
      );
      expect(await ecsStatus(lab, a.instanceId)).toBe('Running');
    } finally {
      await ecsOf(lab).admin.patchInstance(a.instanceId, { tags: ackInstanceTags(lab.cluster) });
    }
  });

  it('never taints a node whose instance stays Stopping: the run fails once the power-off deadline passes', async () => {
    const a = lab.node('node-a');
    await ecsOf(lab).admin.patchInstance(a.instanceId, { stuckInStopping: true });

    const { code, report } = await runFencer(lab, [
      'fence',
      'node-a',
      ...FENCE,
      '--power-off-deadline',
      '20',
      '--timeout',
      '90',
    ]);

    expect(code).toBe(4);
    expect(report?.outcome).toBe('failed');
    expect(report?.reason).toBe('PowerOffNotConfirmed');
    expect(report?.proofOfOff ?? null).toBeNull();
    expect(await ecsStatus(lab, a.instanceId)).toBe('Stopping');
    expect(await taintsOf(lab, 'node-a')).not.toContain(
      'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute',
    );
    const stops = (await fencerEcsCalls(lab)).filter((c) => c.action === 'StopInstances');
    expect(stops.length).toBeGreaterThanOrEqual(1);
  });

  it('retries ECS throttling, then fails cleanly: nothing stopped, nothing tainted', async () => {
    const c = lab.node('node-c');
    await cutAndWait(lab, 'node-c');
    const ecs = ecsOf(lab);
    await ecs.admin.clearRequests();
    await ecs.admin.injectFaults({
      action: '*',
      accessKeyId: ecs.fencerKey.accessKeyId,
      status: 400,
      code: 'Throttling.User',
      message: 'Request was denied due to user flow control.',
      times: 100_000,
    });
    try {
      const { code, report } = await runFencer(lab, [
        'fence',
        'node-c',
        ...FENCE,
        '--power-off-deadline',
        '15',
        '--timeout',
        '60',
      ]);
      expect(code).toBe(4);
      expect(report?.outcome).toBe('failed');
      // Each step waited on throttling (ECS's ThrottlingError reaches the domain as `throttled`), and the
      // run failed at its deadline naming it.
      expect(report?.reason).toBe('ProviderThrottled');
      expect(report?.steps.some((step) => step.reason === 'ProviderThrottled')).toBe(true);
      expect(report?.evidence.join('\n')).toMatch(/Throttling\.User/);
    } finally {
      await ecs.admin.clearFaults();
    }
    const calls = await fencerEcsCalls(lab);
    // Every call was throttled, and each was tried more than once before the step gave up.
    expect(calls.length).toBeGreaterThan(4);
    expect(calls.every((call) => call.code === 'Throttling.User')).toBe(true);
    expect(await ecsStatus(lab, c.instanceId)).toBe('Running');
  });

  it('left no out-of-service taint anywhere and deleted no VolumeAttachment', async () => {
    expect(await outOfServiceTaints(lab)).toEqual([]);
    expect(
      fencerWrites(lab).filter((w) => w.includes('volumeattachments') || w.startsWith('delete')),
    ).toEqual([]);
  });
});
