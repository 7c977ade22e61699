/**
 * The Function Compute deployment, run for real: the five functions bundled as the ROS stack ships
 * them (infra-alicloud/bundling.ts), each invocation a fresh instance process on the machine's Node.js
 * 20 in the lab's Function Compute (real task-mode async invocations, retries, destinations, KMS for
 * the kubeconfig), against the Alibaba-flavoured lab: a real control plane, ECS instances and cloud
 * disks in the ECS emulator, the disk CSI driver. One lab, three nodes; the database moves twice.
 *
 * 1. The timer's health check finds a NotReady node holding a volume and starts a fencing run. The run
 *    is killed right after it asked ECS to stop the instance; Function Compute retries it and the new
 *    attempt continues from the checkpoint on the Node: one StopInstances in all, then the cure.
 * 2. The event router receives the ECS state change of a crashed node's instance (Stopped) and the run
 *    cures it; the same event again (in a batch with unrelated and malformed ones) starts nothing.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../lab/kube-wait.js';
import { type Lab, startLab } from '../../lab/lab.js';
import {
  type DeployedFunctions,
  deployFunctions,
  ecsStateChange,
  timerEvent,
} from '../../lab/scenarios/fc-functions.js';
import { waitNodeNotReady } from '../../lab/scenarios/incident.js';
import { attachmentsOf, deployStatefulApp, type StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { taskIdOf } from '../../lib/adapters/alicloud-fc/index.js';
import { FENCER_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../../lib/domain/node-marks.js';
import { LEASE_GRACE_SECONDS } from '../support/cut-node.js';
import { ecsOf, ecsStatus, fencerStopsOf } from '../support/ecs.js';
import { waitKubeletSilentFor } from '../support/lab-waits.js';

type Json = Record<string, unknown>;

/** The health check's threshold: the smallest the settings allow. */
const NOT_READY_THRESHOLD_SECONDS = 30;
// Two of three nodes end up NotReady (the first one fenced stays down); the limits allow that here.
const requestDefaults = {
  limits: { maxUnhealthyFraction: 0.9, maxUnhealthyNodes: 2, leaseGraceSeconds: LEASE_GRACE_SECONDS },
};

describe('the Function Compute functions on Node.js 20, against the Alibaba lab', () => {
  let lab: Lab;
  let app: StatefulApp;
  let fns: DeployedFunctions;
  let appNode = 'node-a';

  const node = (name: string) => lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name });
  const checkpointOf = async (name: string): Promise<Json | null> => {
    const text = (await node(name)).metadata?.annotations?.[FENCER_ANNOTATION.runCheckpoint];
    return text ? (JSON.parse(text) as Json) : null;
  };
  const stopsOf = (instanceId: string) => fencerStopsOf(lab, instanceId);
  /** Waits until the database runs on a node other than `from`, with its volume attached there. */
  const waitMoved = (from: string) =>
    eventually(
      `${app.podName} Running off ${from}, its volume attached there`,
      async () => {
        const pod = await lab.kubeConfig
          .makeApiClient(CoreV1Api)
          .readNamespacedPod({ name: app.podName, namespace: app.namespace });
        const to = pod.spec?.nodeName;
        if (!to || to === from || pod.status?.phase !== 'Running') return undefined;
        const vas = await attachmentsOf(lab, app.pvName);
        return !vas.has(from) && vas.get(to)?.status?.attached ? to : undefined;
      },
      { timeoutMs: 180_000 },
    );
  const runPayload = (taskId: string): Json =>
    JSON.parse(fns.fc.task(fns.names.run, taskId)?.returnPayload ?? '{}') as Json;

  beforeAll(async () => {
    lab = await startLab({ provider: 'alibaba', nodes: 3 });
    try {
      app = await deployStatefulApp(lab, { onNode: appNode });
      fns = await deployFunctions(lab, {
        requestDefaults,
        notReadyThresholdSeconds: NOT_READY_THRESHOLD_SECONDS,
      });
    } catch (error) {
      await lab.stop();
      throw error;
    }
  });
  afterAll(async () => {
    await fns?.fc.stop();
    await lab?.stop();
  });

  it('runs every function on the machine’s Node.js 20, logging JSON lines with the request id', async () => {
    expect(fns.fc.node.version).toMatch(/^v20\./);

    const sweep = await fns.fc.invoke(fns.names.sweep, timerEvent('sweep'));

    expect(sweep).toMatchObject({ ok: true });
    const report = JSON.parse((sweep as { payload: string }).payload) as Json;
    expect(report).toMatchObject({ mode: 'report-only' });
    const lines = fns.fc.logs
      .filter((l) => l.requestId === sweep.requestId)
      .map((l) => JSON.parse(l.line) as Json);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatchObject({
        requestId: sweep.requestId,
        cluster: lab.cluster,
        service: 'kube-fencer',
      });
    }
  });

  it('the manual invoke starts a run; a run refused (node Ready) ends recorded as refused, nothing written on the node', async () => {
    const manual = await fns.fc.invoke(fns.names.manual, { node: 'node-c', cluster: lab.cluster });
    expect(manual).toMatchObject({ ok: true });
    const started = JSON.parse((manual as { payload: string }).payload) as Json;
    expect(started).toMatchObject({ result: 'started', node: 'node-c' });
    const taskId = taskIdOf(String(started.runName));

    const task = await fns.fc.waitForTask(fns.names.run, taskId, (t) => t.status === 'Succeeded', 60_000);

    expect(task.alreadyRetriedTimes).toBe(0);
    expect(runPayload(taskId)).toMatchObject({ outcome: 'refused', reason: 'NodeReady', attempt: 'fresh' });
    expect(await checkpointOf('node-c')).toBeNull();
    expect(fns.fc.deliveries.filter((d) => d.taskId === taskId)).toEqual([
      expect.objectContaining({
        condition: 'Success',
        responsePayload: expect.stringContaining('"refused"'),
      }),
    ]);
  });

  it('the timer’s health check starts a run for a NotReady node; the run, killed after the power-off, is retried and continues: one StopInstances, the cure', async () => {
    const instanceId = lab.node(appNode).instanceId;
    // A slow stop leaves a wide window between the power-off request and the proof, to crash in.
    await ecsOf(lab).admin.setDelays({ stopMs: 6_000 });
    await lab.cut(appNode);
    await waitNodeNotReady(lab, appNode);
    await waitKubeletSilentFor(lab, appNode, LEASE_GRACE_SECONDS + 1);
    await eventually(`${appNode} NotReady for ${NOT_READY_THRESHOLD_SECONDS} s`, async () => {
      const ready = (await node(appNode)).status?.conditions?.find((c) => c.type === 'Ready');
      const since = ready?.lastTransitionTime ? new Date(ready.lastTransitionTime).getTime() : Date.now();
      return Date.now() - since > (NOT_READY_THRESHOLD_SECONDS + 1) * 1000 ? true : undefined;
    });

    const check = await fns.fc.invoke(fns.names['health-check'], timerEvent('health-check'));
    expect(check).toMatchObject({ ok: true });
    const report = JSON.parse((check as { payload: string }).payload) as Json;
    expect(report.outcomes).toEqual([expect.objectContaining({ result: 'started', node: appNode })]);
    const taskId = taskIdOf(String((report.outcomes as Json[])[0]?.runName));

    // Crash: the instance is asked to stop, the run has recorded that, the proof is not in yet.
    await eventually('the run’s checkpoint records the power-off request', async () => {
      const history = (await checkpointOf(appNode))?.history as Json | undefined;
      return history?.powerOffRequestedAt && history.proofOfOff === null ? true : undefined;
    });
    expect(fns.fc.kill(fns.names.run, taskId)).toBe(true);
    expect(await ecsStatus(lab, instanceId)).not.toBe('Stopped');

    const task = await fns.fc.waitForTask(fns.names.run, taskId, (t) => t.status === 'Succeeded', 120_000);

    expect(task.alreadyRetriedTimes).toBe(1);
    expect(task.events.map((e) => e.status)).toEqual([
      'Enqueued',
      'Running',
      'Retrying',
      'Running',
      'Succeeded',
    ]);
    const result = runPayload(taskId);
    expect(result).toMatchObject({ outcome: 'fenced', attempt: 'resumed', runId: taskId });
    expect(result.proofOfOff).toMatchObject({ instanceId, state: 'stopped' });
    expect(await stopsOf(instanceId)).toHaveLength(1);
    expect((await node(appNode)).spec?.taints).toContainEqual(
      expect.objectContaining({ key: OUT_OF_SERVICE_TAINT.key, effect: 'NoExecute' }),
    );
    // The run has ended: its checkpoint (sealed under the task's own secret) is gone from the Node.
    expect(await checkpointOf(appNode)).toBeNull();
    const from = appNode;
    appNode = await waitMoved(from);
    expect(fns.fc.deliveries.filter((d) => d.taskId === taskId)).toEqual([
      expect.objectContaining({ condition: 'Success', responsePayload: expect.stringContaining('"fenced"') }),
    ]);

    // The next check finds the node fenced (and its volume gone elsewhere): it skips it, no second run.
    const again = await fns.fc.invoke(fns.names['health-check'], timerEvent('health-check'));
    const report2 = JSON.parse((again as { payload: string }).payload) as Json;
    expect(report2.outcomes).toEqual([]);
    expect(report2.skipped).toContainEqual(expect.objectContaining({ node: from }));
    expect(
      fns.fc.tasks(fns.names.run).filter((t) => t.taskPayload.includes(`"node":"${from}"`)),
    ).toHaveLength(1);
  });

  it('the event router turns an ECS state change (Stopped) into a run that cures; the same event again starts nothing, and a batch’s other events are rejected with reasons', async () => {
    await ecsOf(lab).admin.setDelays({ stopMs: 1_500 });
    const crashed = appNode;
    const instanceId = lab.node(crashed).instanceId;
    const stopsBefore = (await stopsOf(instanceId)).length;
    // An earlier test's run may name this node too (the app moves where the scheduler puts it).
    const runsOf = (node: string) =>
      fns.fc.tasks(fns.names.run).filter((t) => t.taskPayload.includes(`"node":"${node}"`));
    const runsBefore = runsOf(crashed).length;
    await lab.crash(crashed);
    await eventually(`${instanceId} Stopped`, async () =>
      (await ecsStatus(lab, instanceId)) === 'Stopped' ? true : undefined,
    );
    await waitNodeNotReady(lab, crashed);
    await waitKubeletSilentFor(lab, crashed, LEASE_GRACE_SECONDS + 1);
    const event = ecsStateChange(lab.region, instanceId, 'Stopped');

    const first = await fns.fc.invoke(fns.names['event-router'], event);

    expect(first).toMatchObject({ ok: true });
    const [started] = (JSON.parse((first as { payload: string }).payload) as { outcomes: Json[] }).outcomes;
    expect(started).toMatchObject({ result: 'started', node: crashed });
    const taskId = taskIdOf(String(started?.runName));

    const healthy = lab.nodes.find((n) => n.name !== crashed && n.name !== 'node-a')?.instanceId ?? '';
    const batch = [
      event,
      { ...event, id: 'evt-oss', source: 'acs.oss', type: 'oss:ObjectCreated:PutObject' },
      { ...event, id: 'evt-bad', data: { state: 'Stopped' } },
      ecsStateChange(lab.region, healthy, 'Running'),
    ];
    const second = await fns.fc.invoke(fns.names['event-router'], batch);
    const outcomes = (JSON.parse((second as { payload: string }).payload) as { outcomes: Json[] }).outcomes;
    expect(outcomes).toEqual([
      expect.objectContaining({ result: 'duplicate', node: crashed, runName: started?.runName }),
      expect.objectContaining({ result: 'rejected', reason: 'UnsupportedEvent' }),
      expect.objectContaining({ result: 'rejected', reason: 'MalformedEvent' }),
      expect.objectContaining({ result: 'rejected', reason: 'NotPoweredOff' }),
    ]);
    const metrics = fns.fc.logs
      .filter((l) => l.requestId === second.requestId)
      .map((l) => JSON.parse(l.line) as Json)
      .filter((l) => l.message === 'metric');
    expect(metrics.filter((m) => m.metric === 'TriggersRejected').map((m) => m.reason)).toEqual([
      'UnsupportedEvent',
      'MalformedEvent',
      'NotPoweredOff',
    ]);
    expect(metrics.filter((m) => m.metric === 'TriggersDuplicate')).toHaveLength(1);

    const task = await fns.fc.waitForTask(fns.names.run, taskId, (t) => t.status === 'Succeeded', 120_000);

    expect(runPayload(taskId)).toMatchObject({ outcome: 'fenced', attempt: 'fresh' });
    expect(task.alreadyRetriedTimes).toBe(0);
    // Already off: proven by observation, never stopped again.
    expect((await stopsOf(instanceId)).length).toBe(stopsBefore);
    expect(runsOf(crashed)).toHaveLength(runsBefore + 1);
    appNode = await waitMoved(crashed);
    expect(appNode).not.toBe('node-a');
  });
});
