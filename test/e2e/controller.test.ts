/**
 * `fencer controller` as two replicas, each its own process against the lab, as user kube-fencer (the
 * RBAC of deploy/rbac.yaml): one leads, the other stands by. A leader frozen past its lease (SIGSTOP) is
 * replaced, and stands by once thawed. node-a is cut; the leader's health check
 * starts the same fencing run as `fencer fence` once node-a has been NotReady past the threshold. The
 * leader is killed (SIGKILL) right after it asked EC2 to stop node-a's machine (held `stopping` by
 * the fault injector, so the kill lands mid-run); the standby takes the Lease, continues the run from
 * its sealed checkpoint under the same run id, and completes the fence with no second power-off. Its
 * /metrics move as the run does. After a power cycle node-a comes back and the controller un-fences it;
 * SIGTERM then gives the Lease back.
 */
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../lab/kube-wait.js';
import { type Lab, startLab } from '../../lab/lab.js';
import {
  type ControllerReplica,
  FAST_ELECTION,
  labSealKey,
  startControllerReplica,
  waitForOneLeader,
  waitReplicaReady,
} from '../../lab/scenarios/controller-process.js';
import { waitForRecoveryElsewhere, waitNodeNotReady } from '../../lab/scenarios/incident.js';
import { deployStatefulApp, type StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { taintsOf, waitNodeReady } from '../support/lab-waits.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';
const CHECKPOINT = 'kube-fencer.io/run-checkpoint';
const RECORD = 'kube-fencer.io/fence-record';
/** Past the 40 s lease grace the runs use by default, counted from NotReady (later than the last renewal). */
const ARGS = ['--not-ready-threshold', '42s', '--health-check-interval', '5s', ...FAST_ELECTION];

describe('fencer controller: two replicas, leader election, a leader killed mid-run', () => {
  let lab: Lab;
  let app: StatefulApp;
  let replicas: ControllerReplica[] = [];
  let leader: ControllerReplica;
  let standby: ControllerReplica;
  let runId = '';

  const core = () => lab.kubeConfig.makeApiClient(CoreV1Api);
  const annotationsOf = async (node: string) =>
    (await core().readNode({ name: node })).metadata?.annotations ?? {};
  const stopCalls = () =>
    lab.ec2Faults
      .requests()
      .filter((r) => r.action === 'StopInstances' && r.instanceIds.includes(lab.node('node-a').instanceId));

  beforeAll(async () => {
    lab = await startLab({ nodes: 3 });
    app = await deployStatefulApp(lab, { onNode: 'node-a' });
    const sealKey = labSealKey();
    replicas = await Promise.all(
      ['replica-1', 'replica-2'].map((identity) =>
        startControllerReplica(lab, { identity, sealKey, args: ARGS }),
      ),
    );
    await Promise.all(replicas.map((r) => waitReplicaReady(r)));
  });
  afterAll(async () => {
    for (const r of replicas) r.run.child.kill('SIGKILL');
    await lab?.stop();
  });

  it('elects one leader; the other replica is ready and stands by', async () => {
    leader = await waitForOneLeader(replicas);
    standby = replicas.find((r) => r !== leader) as ControllerReplica;
    expect(await standby.leading()).toBe(false);
    expect((await standby.get('/readyz')).body).toContain('standing by');
    expect((await leader.get('/readyz')).body).toContain('leading');
    expect((await leader.get('/healthz')).status).toBe(200);
    const lease = await lab.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: 'kube-system', name: 'kube-fencer-controller' });
    expect(lease.spec?.holderIdentity).toBe(leader.identity);
    expect(await leader.sample('kube_fencer_fencing_runs_total{outcome="fenced"}')).toBe(0);
  });

  it('a leader frozen past its lease (SIGSTOP) is replaced, and once thawed it stands by instead of leading on', async () => {
    const frozen = leader;
    frozen.run.child.kill('SIGSTOP');
    try {
      await eventually(
        'the standby takes the Lease',
        async () => ((await standby.leading()) ? true : undefined),
        {
          timeoutMs: 60_000,
        },
      );
    } finally {
      frozen.run.child.kill('SIGCONT');
    }
    await eventually(
      'the thawed replica stands by',
      async () => ((await frozen.leading()) ? undefined : true),
      {
        timeoutMs: 30_000,
      },
    );
    const lease = await lab.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: 'kube-system', name: 'kube-fencer-controller' });
    expect(lease.spec?.holderIdentity).toBe(standby.identity);
    expect(lease.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);
    // The roles swap for the rest of the incident.
    [leader, standby] = [standby, frozen];
  });

  it('starts the fencing run once node-a is NotReady past the threshold, and powers its machine off once', async () => {
    const instanceId = lab.node('node-a').instanceId;
    // EC2 really stops the machine, but reports it `stopping` until the fault is cleared: the run waits.
    lab.ec2Faults.inject({ kind: 'stopping', instanceId, stopInstances: 'forward' });
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    await eventually(
      'the leader asks EC2 to stop node-a',
      async () => (stopCalls().length > 0 ? true : undefined),
      {
        timeoutMs: 150_000,
      },
    );
    const checkpoint = JSON.parse((await annotationsOf('node-a'))[CHECKPOINT] ?? '{}') as {
      history?: { runId?: string; powerOffRequestedAt?: string | null };
    };
    runId = checkpoint.history?.runId ?? '';
    expect(runId).toMatch(new RegExp(`^kc-${lab.cluster}-node-a-[0-9a-f]{16}$`));
    expect(checkpoint.history?.powerOffRequestedAt).toBeTruthy();
    // Mid-run, the leader's metrics show the run going.
    expect(await leader.sample('kube_fencer_runs_in_flight')).toBe(1);
    expect(await leader.sample('kube_fencer_runs_started_total{source="health-check"}')).toBe(1);
  });

  it('a standby takes over when the leader is killed, continues the same run, and fences node-a', async () => {
    leader.run.child.kill('SIGKILL');
    await leader.run.done;
    await eventually('the standby leads', async () => ((await standby.leading()) ? true : undefined), {
      timeoutMs: 60_000,
    });
    lab.ec2Faults.clear();
    await eventually('node-a tainted', async () =>
      (await taintsOf(lab, 'node-a')).includes(OUT_OF_SERVICE) ? true : undefined,
    );
    await waitForRecoveryElsewhere(lab, app, 'node-a');

    const record = JSON.parse((await annotationsOf('node-a'))[RECORD] ?? '{}') as {
      runId?: string;
      proof?: string;
      instanceId?: string;
    };
    expect(record).toMatchObject({ runId, proof: 'stopped', instanceId: lab.node('node-a').instanceId });
    expect(stopCalls().filter((r) => r.status === 200)).toHaveLength(1);
    await eventually('the checkpoint is cleared at the run’s end', async () =>
      CHECKPOINT in (await annotationsOf('node-a')) ? undefined : true,
    );
    const events = await core().listNamespacedEvent({
      namespace: 'default',
      fieldSelector: 'involvedObject.name=node-a',
    });
    const reasons = events.items.filter((e) => e.reportingComponent === 'kube-fencer').map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['FencingPowerOff', 'FencingTaint', 'FencingFenced']));
  });

  it('counts the run on the new leader: outcome, duration and time to recovery', async () => {
    await eventually('the fenced run is counted', async () =>
      (await standby.sample('kube_fencer_fencing_runs_total{outcome="fenced"}')) === 1 ? true : undefined,
    );
    expect(await standby.sample('kube_fencer_fence_duration_seconds_count{outcome="fenced"}')).toBe(1);
    expect(await standby.sample('kube_fencer_time_to_recovery_seconds_count')).toBe(1);
    expect(await standby.sample('kube_fencer_time_to_recovery_seconds_sum')).toBeGreaterThan(40);
    expect(await standby.sample('kube_fencer_runs_in_flight')).toBe(0);
    expect(await standby.sample('kube_fencer_leader')).toBe(1);
  });

  it('un-fences node-a once it is back after a power cycle', async () => {
    await lab.restore('node-a');
    await waitNodeReady(lab, 'node-a');
    await eventually(
      'the out-of-service taint lifted',
      async () => ((await taintsOf(lab, 'node-a')).includes(OUT_OF_SERVICE) ? undefined : true),
      { timeoutMs: 120_000 },
    );
    expect(RECORD in (await annotationsOf('node-a'))).toBe(false);
    expect(await standby.sample('kube_fencer_fencing_runs_total{outcome="unfenced"}')).toBe(1);
  });

  it('gives the Lease back on SIGTERM and exits 0', async () => {
    standby.run.child.kill('SIGTERM');
    const { code } = await standby.run.done;
    expect(code).toBe(0);
    const lease = await lab.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: 'kube-system', name: 'kube-fencer-controller' });
    expect(lease.spec?.holderIdentity ?? '').toBe('');
  });
});
