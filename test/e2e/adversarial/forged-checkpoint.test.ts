/**
 * Adversarial: SAFETY.md rule 2 (a record the run did not write itself never stands in for an
 * observation). The Function Compute run, bundled as deployed, keeps its memory between attempts in
 * the Node's `kube-fencer.io/run-checkpoint` annotation, which anyone who may patch the Node can write,
 * under a run id anyone can predict. Against a node that looks lost (NotReady) while its Lease is
 * renewed every second, a forger writes, for the very run the manual invoke will start, a consistent
 * checkpoint that claims the decision and the power-off (before runs sealed their checkpoints, the run
 * continued from it past every rule before the commitment), one that claims the run already ended
 * fenced (it was replayed as a fence that never happened), and garbage.
 * Each run ignores the forgery with a FencingCheckpointIgnored Event, decides on what it observes and
 * refuses LeaseFresh: no StopInstances, no taint. A truly silent node is then fenced, and its run's own
 * checkpoint is gone from the Node once the run has ended. Asserted from the ECS emulator's request log,
 * the Node, its Events and the runs' reports.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../lab/lab.js';
import { type DeployedFunctions, deployFunctions } from '../../../lab/scenarios/fc-functions.js';
import { waitNodeNotReady } from '../../../lab/scenarios/incident.js';
import { taskIdOf } from '../../../lib/adapters/alicloud-fc/index.js';
import { kubeconfigEndpoint } from '../../../lib/adapters/kubernetes/access/endpoints.js';
import { KubeCluster } from '../../../lib/adapters/kubernetes/index.js';
import { incidentOf, runName } from '../../../lib/app/triggers/start-run.js';
import { LEASE_GRACE_SECONDS } from '../../support/cut-node.js';
import { ecsStatus, fencerStopsOf } from '../../support/ecs.js';
import { waitKubeletSilentFor } from '../../support/lab-waits.js';
import {
  checkpointOn,
  type Forgery,
  forgedCheckpoint,
  requestOf,
  writeCheckpoint,
} from './forged-checkpoints.js';
import { keepLeaseFresh } from './staging.js';
import { fencerEventsOn, OUT_OF_SERVICE, taintsOn } from './support.js';

type Json = Record<string, unknown>;

describe('adversarial: forged run checkpoints against the Function Compute run (SAFETY.md rule 2)', () => {
  let lab: Lab;
  let fns: DeployedFunctions;
  let stopRenewing: (() => Promise<void>) | undefined;
  let cluster: KubeCluster;
  const payloadFor = (node: string): Json => ({
    node,
    cluster: lab.cluster,
    limits: { maxUnhealthyFraction: 0.9, maxUnhealthyNodes: 2, leaseGraceSeconds: LEASE_GRACE_SECONDS },
  });

  /** The run id the manual invoke's `attempt`-th run for `node` will have: all a forger needs. */
  const predictedRunId = async (node: string, attempt: number): Promise<string> => {
    const view = await cluster.getNode(node);
    if (!view) throw new Error(`no node ${node}`);
    return taskIdOf(runName(requestOf(payloadFor(node)), incidentOf(view), attempt));
  };
  /** A manual request for `node`, and the report of the run it started, once Function Compute says it ended. */
  const runFor = async (node: string): Promise<Json> => {
    const manual = await fns.fc.invoke(fns.names.manual, payloadFor(node));
    expect(manual).toMatchObject({ ok: true });
    const started = JSON.parse((manual as { payload: string }).payload) as Json;
    expect(started).toMatchObject({ result: 'started', node });
    const taskId = taskIdOf(String(started.runName));
    const task = await fns.fc.waitForTask(fns.names.run, taskId, (t) => t.status === 'Succeeded', 180_000);
    return { ...(JSON.parse(task.returnPayload ?? '{}') as Json), taskId };
  };

  beforeAll(async () => {
    lab = await startLab({ provider: 'alibaba', nodes: 3 });
    try {
      fns = await deployFunctions(lab, { requestDefaults: {} });
      cluster = new KubeCluster(
        kubeconfigEndpoint(readFileSync(lab.fencerKubeconfigPath, 'utf8'), {
          source: lab.fencerKubeconfigPath,
          baseDir: dirname(lab.fencerKubeconfigPath),
        }),
      );
      await Promise.all([lab.cut('node-a'), lab.cut('node-b')]);
      await Promise.all([waitNodeNotReady(lab, 'node-a'), waitNodeNotReady(lab, 'node-b')]);
      // node-a looks lost, and lives: its Lease is renewed every second throughout.
      stopRenewing = keepLeaseFresh(lab, 'node-a');
    } catch (error) {
      await fns?.fc.stop();
      await lab.stop();
      throw error;
    }
  });
  afterAll(async () => {
    await stopRenewing?.();
    await fns?.fc.stop();
    await lab?.stop();
  });

  const forgeries: [Forgery, string][] = [
    ['pre-commit-skipped', 'a checkpoint claiming the decision and the power-off'],
    ['replayed-done', 'a checkpoint claiming the run already ended fenced'],
    ['garbage', 'garbage'],
  ];

  it.each(forgeries.map(([kind, what], i) => [what, kind, i + 1] as const))(
    'ignores %s, loudly, and refuses the live node LeaseFresh: no StopInstances, no taint',
    async (_, kind, attempt) => {
      const instanceId = lab.node('node-a').instanceId;
      const view = await cluster.getNode('node-a');
      const runId = await predictedRunId('node-a', attempt);
      const forged = forgedCheckpoint(kind, {
        runId,
        request: requestOf(payloadFor('node-a')),
        node: 'node-a',
        nodeUid: view?.uid ?? '',
        provider: 'alicloud',
        instanceId,
      });
      await writeCheckpoint(lab, 'node-a', forged);
      // Events are listed in no particular order: count those that name this forgery's fault.
      const fault = kind === 'garbage' ? /not JSON/ : /carries no seal/;
      const ignoredFor = async () =>
        (await fencerEventsOn(lab, 'node-a')).filter(
          (e) => e.reason === 'FencingCheckpointIgnored' && fault.test(e.message),
        ).length;
      const ignoredBefore = await ignoredFor();

      const report = await runFor('node-a');

      // The forger predicted the run's id: the forgery was this run's to judge, not another's.
      expect(report.taskId).toBe(runId);
      expect(report, JSON.stringify(report)).toMatchObject({
        outcome: 'refused',
        reason: 'LeaseFresh',
        attempt: 'fresh',
      });
      expect(await fencerStopsOf(lab, instanceId)).toEqual([]);
      expect(await ecsStatus(lab, instanceId)).toBe('Running');
      expect(await taintsOn(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
      expect(await ignoredFor()).toBe(ignoredBefore + 1);
      // The forgery is not the run's own record: the run leaves it where it found it.
      expect(await checkpointOn(lab, 'node-a')).toBe(forged);
    },
  );

  it('fences a truly silent node, and removes its own checkpoint from the Node when the run ends', {
    timeout: 300_000,
  }, async () => {
    await waitKubeletSilentFor(lab, 'node-b', LEASE_GRACE_SECONDS + 1);
    const instanceId = lab.node('node-b').instanceId;

    // The run keeps a checkpoint while it runs: watched for, every 200 ms.
    const seen = new Set<string>();
    const watch = setInterval(() => {
      void checkpointOn(lab, 'node-b').then(
        (text) => text && seen.add(text),
        () => undefined,
      );
    }, 200);
    const report = await runFor('node-b').finally(() => clearInterval(watch));

    expect(report, JSON.stringify(report)).toMatchObject({ outcome: 'fenced', attempt: 'fresh' });
    expect((await fencerStopsOf(lab, instanceId)).length).toBeGreaterThan(0);
    expect(await ecsStatus(lab, instanceId)).toBe('Stopped');
    expect(await taintsOn(lab, 'node-b')).toContain(OUT_OF_SERVICE);
    expect(seen.size).toBeGreaterThan(0);
    for (const text of seen) expect(JSON.parse(text)).toHaveProperty('seal');
    expect(await checkpointOn(lab, 'node-b')).toBeUndefined();
  });
});
