/**
 * The deployed shape runs for real, locally: the state machine definition synthesized by CDK is executed
 * by an Amazon States Language interpreter (aws-local-stepfunctions), with the real step handler
 * (functions/step, in-process) as its Task, against the lab: a real control plane, the EC2 emulator and
 * simulated kubelets. Only SNS publishing is replaced, to capture what would be sent. The incident starts
 * where it starts in AWS: an EC2 status-check alarm, routed to its node by the event router's use case,
 * which starts the run through the Workflow port (here: the interpreter instead of Step Functions).
 */

import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerIdReaders } from '../../functions/shared/provider-ids.js';
import { WorkflowState } from '../../infra/constructs/workflow-states.js';
import { describeInstanceState } from '../../lab/ec2-emulator.js';
import { eventually } from '../../lab/kube-wait.js';
import { type Lab, startLab } from '../../lab/lab.js';
import { waitForRecovery, waitKubeletSilentFor, waitNodeNotReady } from '../../lab/scenarios/incident.js';
import { LocalWorkflow } from '../../lab/scenarios/local-workflow.js';
import { attachmentsOf, deployStatefulApp, type StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { kubeconfigEndpoint } from '../../lib/adapters/kubernetes/access/endpoints.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/index.js';
import { routeTrigger, type TriggerDeps } from '../../lib/app/triggers/index.js';
import { parseEvent } from '../../lib/config/events.js';
import { requestDefaultsSchema } from '../../lib/config/lambda-settings.js';
import { OUT_OF_SERVICE_TAINT } from '../../lib/domain/node-marks.js';
import { InMemoryMetrics } from '../../lib/observability/index.js';
import { waitNodeReady } from '../support/lab-waits.js';
import { invokeInChild } from '../support/lambda-child.js';
import { stateMachineDefinition, synth } from '../support/synth.js';
import { startXrayDaemon } from '../support/xray-daemon.js';
import { statusCheckAlarm } from '../unit/functions/support/aws-events.js';
import {
  checkpointOn,
  forgedCheckpoint,
  requestOf,
  writeCheckpoint,
} from './adversarial/forged-checkpoints.js';
import { keepLeaseFresh } from './adversarial/staging.js';
import { fencerEventsOn, powerOffsOf, skewedClock } from './adversarial/support.js';

type Json = Record<string, unknown>;

const executionArn = (name: string) => `arn:aws:states:us-east-1:123456789012:execution:lab-fencing:${name}`;
const consoleUrl = (name: string) =>
  `https://console.aws.amazon.com/states/home?region=us-east-1#/v2/executions/details/${executionArn(name)}`;
type Handler = (event: unknown, context: Context) => Promise<unknown>;

describe('the synthesized fencing workflow, run by an ASL interpreter with the real step handler', () => {
  let lab: Lab;
  let app: StatefulApp;
  let definition: Json;
  let labReadyAt: number;
  let step: Handler;
  const savedEnv = { ...process.env };
  const published: Json[] = [];

  /** The interpreter with the real step (in this process unless a test runs it elsewhere). */
  const workflowWith = (runStep: Handler = step) =>
    new LocalWorkflow({ definition, step: runStep, onPublish: (message) => published.push(message) });
  /** Runs one execution: Task `Step` is the real handler, the SNS tasks are captured, Waits take 2 s. */
  const execute = (name: string, input: Json, runStep: Handler = step) =>
    workflowWith(runStep).execute(name, input);

  /**
   * The step handler in a process of its own under libfaketime, as Lambda would run it on a host whose
   * clock is off by `offset`; each invocation's measured skew goes into `skews`.
   */
  const stepWithClock =
    (offset: string, skews: number[]): Handler =>
    (state) =>
      invokeInChild('functions/step/index.ts', state, skewedClock(offset), (child, parent) =>
        skews.push(child - parent),
      );

  beforeAll(async () => {
    definition = stateMachineDefinition(synth([{ name: 'lab', eks: {} }]).template);
    lab = await startLab({ nodes: 2 });
    labReadyAt = Date.now();
    app = await deployStatefulApp(lab, { onNode: 'node-a' });
    // The step function runs as the lab's `kube-fencer` user: only what deploy/rbac.yaml grants, audited.
    Object.assign(process.env, lab.fencerEnv, {
      FENCER_CLUSTER_ACCESS: 'kubeconfig-file',
      FENCER_KUBECONFIG_PATH: lab.fencerKubeconfigPath,
      POWERTOOLS_LOG_LEVEL: 'WARN',
    });
    ({ handler: step } = (await import('../../functions/step/index.js')) as unknown as { handler: Handler });
  });
  afterAll(async () => {
    process.env = savedEnv;
    await lab?.stop();
  });

  it('ignores a forged checkpoint for its execution, loudly, and refuses a node that looks lost but lives: no StopInstances', async () => {
    // SAFETY.md rule 2: anyone who may patch the Node can write a checkpoint under an execution name
    // anyone can predict. Continued from, this one (the decision and the power-off, 20 s ago) would skip
    // every rule before the commitment. Only the execution's own seal (States.UUID()) makes a checkpoint
    // the run's memory.
    await lab.cut('node-b');
    await waitNodeNotReady(lab, 'node-b');
    const stopRenewing = keepLeaseFresh(lab, 'node-b');
    try {
      const name = 'lab-node-b-forged';
      const request = requestOf({ node: 'node-b', cluster: 'lab' });
      const { instanceId } = lab.node('node-b');
      const uid = (await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: 'node-b' })).metadata?.uid;
      const forged = forgedCheckpoint('pre-commit-skipped', {
        runId: name,
        request,
        node: 'node-b',
        nodeUid: uid ?? '',
        provider: 'aws',
        instanceId,
      });
      await writeCheckpoint(lab, 'node-b', forged);

      const run = execute(name, { request });
      const output = await run.result;
      await run.logging;

      expect(output).toMatchObject({ outcome: 'refused', reason: 'LeaseFresh', node: 'node-b' });
      expect(powerOffsOf(lab, instanceId)).toEqual([]);
      expect(await describeInstanceState(lab.ec2.client, instanceId)).toBe('running');
      const ignored = (await fencerEventsOn(lab, 'node-b')).filter(
        (e) => e.reason === 'FencingCheckpointIgnored',
      );
      expect(ignored).toEqual([
        expect.objectContaining({ message: expect.stringMatching(/carries no seal/) }),
      ]);
      expect(await checkpointOn(lab, 'node-b')).toBe(forged);
    } finally {
      await stopRenewing();
      await lab.reconnect('node-b');
      await waitNodeReady(lab, 'node-b');
    }
  });

  it('refuses a node that looks lost but lives when the step runs with its clock two minutes fast (SAFETY.md rule 2): LeaseFresh, no StopInstances', async () => {
    // The step handler in a process of its own under libfaketime, as Lambda would run it on a host
    // whose clock is wrong: on its own clock a Lease renewed a second ago would be two minutes old.
    const skews: number[] = [];
    const skewedStep = stepWithClock('+2m', skews);
    await lab.cut('node-b');
    await waitNodeNotReady(lab, 'node-b');
    const stopRenewing = keepLeaseFresh(lab, 'node-b');
    try {
      const { instanceId } = lab.node('node-b');
      const run = execute(
        'lab-node-b-skewed',
        { request: requestOf({ node: 'node-b', cluster: 'lab' }) },
        skewedStep,
      );
      const output = await run.result;
      await run.logging;

      expect(skews.length).toBeGreaterThan(0);
      for (const skew of skews) expect(skew).toBeGreaterThan(100_000);
      expect(output, JSON.stringify(output)).toMatchObject({
        outcome: 'refused',
        reason: 'LeaseFresh',
        node: 'node-b',
      });
      // On the step's own clock the Lease would be two minutes old: LeaseFresh says it was aged on the API server's.
      expect(powerOffsOf(lab, instanceId)).toEqual([]);
      expect(await describeInstanceState(lab.ec2.client, instanceId)).toBe('running');
      const node = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: 'node-b' });
      expect(node.spec?.taints ?? []).not.toContainEqual(
        expect.objectContaining({ key: OUT_OF_SERVICE_TAINT.key }),
      );
    } finally {
      await stopRenewing();
      await lab.reconnect('node-b');
      await waitNodeReady(lab, 'node-b');
    }
  });

  it('fences the cut node end to end from its status-check alarm, its step’s clock a minute slow (SAFETY.md rule 2): one run for duplicate alarms, instance stopped, node tainted, the volume moves to node-b, outcome published', {
    timeout: 240_000,
  }, async () => {
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    // The run refuses a Lease younger than its 40 s grace, as it should for an alarm that came early.
    // On the step's slow clock this Lease, 41 s old, would not even have been written yet: only an age
    // judged on the API server's clock lets it fence.
    await waitKubeletSilentFor(lab, 'node-a', 41);
    // A clock a minute slow reads the instance's launch as later than its decision (so as a start
    // after it) until the lab is older than that minute: wait until it is, as a real node is hours old.
    await sleep(Math.max(0, labReadyAt + 75_000 - Date.now()));
    const skews: number[] = [];
    const workflow = workflowWith(stepWithClock('-1m', skews));
    const router: TriggerDeps = {
      cluster: new KubeCluster(
        kubeconfigEndpoint(readFileSync(lab.fencerKubeconfigPath, 'utf8'), {
          source: lab.fencerKubeconfigPath,
          baseDir: dirname(lab.fencerKubeconfigPath),
        }),
      ),
      compute: providerIdReaders,
      workflow,
      clock: { now: () => new Date() },
      log: { info() {}, warn() {}, error() {} },
      metrics: new InMemoryMetrics(),
    };
    // The lab's node-monitor grace is 10 s (lab/control-plane.ts), and one of its two nodes is down.
    const requestDefaults = requestDefaultsSchema.parse({
      limits: { maxUnhealthyFraction: 0.5, leaseGraceSeconds: 40 },
    });
    const alarm = statusCheckAlarm('StatusCheckFailed_System', 'ALARM', lab.node('node-a').instanceId);

    const [started] = await routeTrigger(
      router,
      { cluster: lab.cluster, requestDefaults },
      parseEvent(alarm),
    );
    const [again] = await routeTrigger(router, { cluster: lab.cluster, requestDefaults }, parseEvent(alarm));

    expect(started).toMatchObject({ result: 'started', node: 'node-a' });
    expect(again).toMatchObject({ result: 'duplicate', node: 'node-a', status: 'running' });
    expect(workflow.runs.size).toBe(1);
    const [runName, run] = [...workflow.runs][0] ?? [];
    if (!runName || !run) throw new Error('the alarm started no run');
    const output = await run.result;
    await run.logging;

    expect(skews.length).toBeGreaterThan(0);
    for (const skew of skews) expect(skew).toBeLessThan(-50_000);
    const decision = output.decision as Json;
    expect(decision.outcome, JSON.stringify(output)).toBe('fenced');
    expect((output.history as Json).proofOfOff).toMatchObject({
      instanceId: lab.node('node-a').instanceId,
      state: 'stopped',
    });
    expect(run.visited).toContain(WorkflowState.Wait);
    expect(run.visited.at(-1)).toBe(WorkflowState.Fenced);
    expect(await describeInstanceState(lab.ec2.client, lab.node('node-a').instanceId)).toBe('stopped');
    const node = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: 'node-a' });
    expect(node.spec?.taints).toContainEqual(
      expect.objectContaining({ key: OUT_OF_SERVICE_TAINT.key, effect: 'NoExecute' }),
    );
    await waitForRecovery(lab, app, 'node-a', 'node-b');
    expect((await attachmentsOf(lab, app.pvName)).get('node-b')?.status?.attached).toBe(true);
    expect(published.at(-1)).toMatchObject({
      Subject: 'kube-fencer: fenced node-a in lab',
      Message: {
        outcome: 'fenced',
        node: 'node-a',
        cluster: 'lab',
        runId: runName,
        executionArn: executionArn(runName),
        consoleUrl: consoleUrl(runName),
      },
      MessageAttributes: { outcome: { StringValue: 'fenced' } },
    });
    // Taint, don't delete (SAFETY.md rule 5): no VolumeAttachment or Node was deleted, nothing was forbidden.
    const requests = lab.fencerRequests();
    expect(
      requests.filter(
        (r) => r.verb === 'delete' && ['volumeattachments', 'nodes'].includes(r.objectRef?.resource ?? ''),
      ),
    ).toEqual([]);
    expect(requests.filter((r) => r.responseStatus?.code === 403)).toEqual([]);
  });

  it('ends a refused run in the Refused success state with the reason as output, after publishing it as a refusal', async () => {
    const run = execute('lab-node-b-refused', { request: { node: 'node-b', cluster: 'lab' } });

    const output = await run.result;
    await run.logging;

    expect(output).toEqual({
      outcome: 'refused',
      reason: 'NodeReady',
      message: expect.stringContaining('Ready'),
      phase: 'Refused',
      node: 'node-b',
      cluster: 'lab',
      runId: 'lab-node-b-refused',
    });
    expect(run.visited.slice(-3)).toEqual([
      WorkflowState.Outcome,
      WorkflowState.RefusalReport,
      WorkflowState.Refused,
    ]);
    expect(published.at(-1)).toMatchObject({
      Subject: 'kube-fencer: refused node-b (NodeReady) in lab',
      Message: {
        outcome: 'refused',
        node: 'node-b',
        reason: 'NodeReady',
        consoleUrl: consoleUrl('lab-node-b-refused'),
      },
      MessageAttributes: { outcome: { StringValue: 'refused' } },
    });
  });

  it('traces each step as X-Ray sees it under active tracing: the invocation with its run id, every EC2 call and every Kubernetes request', async () => {
    const daemon = await startXrayDaemon();
    try {
      const tracedStep: Handler = (state) =>
        invokeInChild('functions/step/index.ts', state, daemon.lambdaEnv);
      const run = execute('lab-node-b-traced', { request: { node: 'node-b', cluster: 'lab' } }, tracedStep);
      expect(await run.result).toMatchObject({ outcome: 'refused', reason: 'NodeReady' });
      await run.logging;
      // The SDK sends each subsegment as it closes: the invocation's own closes last.
      const segments = await eventually(
        'the step invocation’s subsegment at the X-Ray daemon',
        async () =>
          daemon.segments().some((s) => s.name === '## index.handler') ? daemon.segments() : undefined,
        {
          timeoutMs: 10_000,
          lastSeen: () =>
            daemon
              .segments()
              .map((s) => s.name)
              .join(', ') || 'nothing',
        },
      );

      expect(new Set(segments.map((s) => s.trace_id).filter(Boolean))).toEqual(new Set([daemon.traceId]));
      const invocation = segments.find((s) => s.name === '## index.handler');
      expect(invocation?.annotations).toMatchObject({ runId: 'lab-node-b-traced' });
      expect(
        segments.filter((s) => s.namespace === 'aws').map((s) => `${s.name} ${s.aws?.operation}`),
      ).toContain('EC2 DescribeInstances');
      // X-Ray records a request's URL without its port.
      const apiServer = new URL(lab.kubeConfig.getCurrentCluster()?.server ?? '');
      const kubernetes = segments
        .filter((s) => s.namespace === 'remote' && s.http?.request?.url)
        .map((s) => new URL(s.http?.request?.url ?? ''))
        .filter((url) => url.protocol === apiServer.protocol && url.hostname === apiServer.hostname)
        .map((url) => url.pathname);
      expect(kubernetes).toEqual(
        expect.arrayContaining([
          '/api/v1/nodes/node-b',
          '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-b',
          '/api/v1/namespaces/default/events',
        ]),
      );
    } finally {
      await daemon.close();
    }
  });

  it('catches a ValidationError without retrying it, publishes the failure and fails with its name', async () => {
    const run = execute('lab-invalid', { request: { node: 'Not_A_Node', cluster: 'lab' } });

    await expect(run.result).rejects.toMatchObject({
      name: 'ExecutionError',
      cause: { name: 'ValidationError' },
    });
    await run.logging;

    expect(run.visited.filter((s) => s === WorkflowState.Step)).toHaveLength(1);
    expect(run.visited.slice(-2)).toEqual([WorkflowState.PublishFailure, WorkflowState.StepFailed]);
    expect(published.at(-1)).toMatchObject({
      Subject: 'kube-fencer failed lab-invalid',
      Message: { outcome: 'failed', error: 'ValidationError', consoleUrl: consoleUrl('lab-invalid') },
      MessageAttributes: { outcome: { StringValue: 'failed' } },
    });
  });
});
