/**
 * Adversarial: SAFETY.md rule 2 (never fence a live node) when the serverless run's clock is wrong. The
 * Function Compute run function, bundled as deployed, runs in the lab's Function Compute on Node.js 20
 * under libfaketime, its clock two minutes fast: on its own clock a Lease renewed a second ago would
 * look two minutes old. It ages the Lease on the API server's clock, so a node that looks lost
 * (NotReady) while its Lease is renewed every second is refused `LeaseFresh`, nothing stopped and
 * nothing written; once the node is truly silent, the same skewed run fences it. Asserted from the ECS
 * emulator's request log, the Node and the run's own report.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../lab/lab.js';
import { type DeployedFunctions, deployFunctions } from '../../../lab/scenarios/fc-functions.js';
import { waitNodeNotReady } from '../../../lab/scenarios/incident.js';
import { taskIdOf } from '../../../lib/adapters/alicloud-fc/index.js';
import { FENCER_ANNOTATION } from '../../../lib/domain/node-marks.js';
import { LEASE_GRACE_SECONDS } from '../../support/cut-node.js';
import { ecsStatus, fencerStopsOf } from '../../support/ecs.js';
import { waitKubeletSilentFor } from '../../support/lab-waits.js';
import { keepLeaseFresh } from './staging.js';
import { OUT_OF_SERVICE, skewedClock, taintsOn } from './support.js';

type Json = Record<string, unknown>;

const SKEW_MS = 120_000;
const requestDefaults = {
  limits: { maxUnhealthyFraction: 0.9, maxUnhealthyNodes: 2, leaseGraceSeconds: LEASE_GRACE_SECONDS },
};

describe('adversarial: a Function Compute run whose clock is two minutes fast (SAFETY.md rule 2)', () => {
  let lab: Lab;
  let fns: DeployedFunctions;
  let stopRenewing: (() => Promise<void>) | undefined;

  const stopsOf = (instanceId: string) => fencerStopsOf(lab, instanceId);
  const checkpointOf = async (name: string): Promise<string | undefined> =>
    (await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name })).metadata?.annotations?.[
      FENCER_ANNOTATION.runCheckpoint
    ];
  /** A manual request for `node`, and the report of the run it started, once Function Compute says it ended. */
  const runFor = async (node: string): Promise<Json> => {
    const manual = await fns.fc.invoke(fns.names.manual, { node, cluster: lab.cluster });
    expect(manual).toMatchObject({ ok: true });
    const started = JSON.parse((manual as { payload: string }).payload) as Json;
    expect(started).toMatchObject({ result: 'started', node });
    const taskId = taskIdOf(String(started.runName));
    const task = await fns.fc.waitForTask(fns.names.run, taskId, (t) => t.status === 'Succeeded', 180_000);
    return JSON.parse(task.returnPayload ?? '{}') as Json;
  };

  beforeAll(async () => {
    lab = await startLab({ provider: 'alibaba', nodes: 3 });
    try {
      fns = await deployFunctions(lab, { requestDefaults, runEnvironment: skewedClock('+2m') });
      await lab.cut('node-a');
      await waitNodeNotReady(lab, 'node-a');
    } catch (error) {
      await fns?.fc.stop();
      await lab.stop();
      throw error;
    }
  });
  afterEach(async () => {
    await stopRenewing?.();
    stopRenewing = undefined;
  });
  afterAll(async () => {
    await fns?.fc.stop();
    await lab?.stop();
  });

  it('refuses a NotReady node whose Lease is renewed every second: no StopInstances, no taint, LeaseFresh', async () => {
    stopRenewing = keepLeaseFresh(lab, 'node-a');
    const instanceId = lab.node('node-a').instanceId;
    const before = Date.now();

    const report = await runFor('node-a');

    // The skew reached the run: the report it wrote starts two minutes ahead of this clock.
    expect(Date.parse(String(report.startedAt)) - before).toBeGreaterThan(SKEW_MS - 20_000);

    expect(await stopsOf(instanceId)).toEqual([]);
    expect(await ecsStatus(lab, instanceId)).toBe('Running');
    expect(await taintsOn(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
    expect(report).toMatchObject({ outcome: 'refused', reason: 'LeaseFresh' });
    expect(JSON.stringify(report)).toMatch(/lease renewed (([0-9]|[1-3][0-9])s before|1s after) it was read/);
    expect(await checkpointOf('node-a')).toBeUndefined();
  });

  it('fences the same node once it is truly silent, with the same skewed clock', {
    timeout: 300_000,
  }, async () => {
    await waitKubeletSilentFor(lab, 'node-a', LEASE_GRACE_SECONDS + 1);
    const instanceId = lab.node('node-a').instanceId;

    const report = await runFor('node-a');

    expect(report, JSON.stringify(report)).toMatchObject({ outcome: 'fenced' });
    expect((await stopsOf(instanceId)).length).toBeGreaterThan(0);
    expect(await ecsStatus(lab, instanceId)).toBe('Stopped');
    expect(await taintsOn(lab, 'node-a')).toContain(OUT_OF_SERVICE);
  });
});
