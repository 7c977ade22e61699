/**
 * What ECS says is judged once, in an Alibaba-flavoured lab: a wrong secret (every call answers
 * `SignatureDoesNotMatch`) ends the run at once with the credentials' exit code, and an instance ECS no
 * longer knows (released) is refused as `InstanceNotFound`, never as another account's. Neither taints
 * a node or stops a machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../lab/lab.js';
import { waitNodeNotReady } from '../../lab/scenarios/incident.js';
import { ecsOf, ecsStatus, fencerEcsCalls } from '../support/ecs.js';
import { runFencer } from '../support/fencer-cli.js';
import { taintsOf, waitKubeletSilentFor } from '../support/lab-waits.js';

const FENCE = ['--lease-grace', '40', '--max-unhealthy-fraction', '0.9', '--output', 'json'];
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';

const cutAndWait = async (lab: Lab, node: string) => {
  await lab.cut(node);
  await waitNodeNotReady(lab, node);
  await waitKubeletSilentFor(lab, node, 41);
};

describe('provider verdicts on Alibaba Cloud', () => {
  let lab: Lab;

  beforeAll(async () => {
    lab = await startLab({ nodes: 3, provider: 'alibaba' });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('ends at once with exit 7 when ECS rejects the signature, instead of retrying until the deadline', async () => {
    const a = lab.node('node-a');
    await cutAndWait(lab, 'node-a');
    const ecs = ecsOf(lab);
    await ecs.admin.clearRequests();
    await ecs.admin.injectFaults({
      action: '*',
      accessKeyId: ecs.fencerKey.accessKeyId,
      status: 400,
      code: 'SignatureDoesNotMatch',
      message: 'The request signature does not conform to Aliyun standards.',
      times: 100_000,
    });
    try {
      const { code, report } = await runFencer(lab, ['fence', 'node-a', ...FENCE, '--timeout', '300']);
      expect(code).toBe(7);
      expect(report?.reason).toBe('ProviderCredentialsRejected');
      expect(report?.evidence.join('\n')).toMatch(/SignatureDoesNotMatch/);
      // One step, and no call asked twice: the verdict was taken as given.
      expect(report?.steps).toHaveLength(1);
    } finally {
      await ecs.admin.clearFaults();
    }
    const calls = await fencerEcsCalls(lab);
    expect(calls.every((call) => call.code === 'SignatureDoesNotMatch')).toBe(true);
    expect(calls.filter((call) => !call.action.startsWith('Describe'))).toEqual([]);
    expect(await ecsStatus(lab, a.instanceId)).toBe('Running');
    expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
  });

  it('refuses an instance ECS has released as InstanceNotFound, never WrongAccount', async () => {
    const b = lab.node('node-b');
    await cutAndWait(lab, 'node-b');
    await ecsOf(lab).admin.releaseInstance(b.instanceId);

    const { code, report } = await runFencer(lab, ['fence', 'node-b', ...FENCE]);

    expect(code).toBe(3);
    expect(report?.reason).toBe('InstanceNotFound');
    expect(report?.evidence.join('\n')).toMatch(/InvalidInstanceId\.NotFound/);
    expect(await taintsOf(lab, 'node-b')).not.toContain(OUT_OF_SERVICE);
  });
});
