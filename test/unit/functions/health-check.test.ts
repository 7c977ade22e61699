/** The scheduled health check: who it fences, who it leaves alone, and the blast-radius limits. */
import { describe, expect, it } from 'vitest';
import { type HealthCheckSettings, healthCheck } from '../../../lib/app/triggers/health-check.js';
import { INSTANCE_A, INSTANCE_B } from './support/aws-events.js';
import { fakeDeps, node, pv, REQUEST_DEFAULTS, va } from './support/fakes.js';

const SETTINGS: HealthCheckSettings = {
  cluster: 'prod',
  requestDefaults: REQUEST_DEFAULTS,
  notReadyThresholdSeconds: 180,
};
const LONG_AGO = '2026-02-02T17:00:00Z'; // 15 min before NOW
const JUST_NOW = '2026-02-02T17:14:00Z'; // 1 min before NOW

const healthy = (name: string) =>
  node(name, `aws:///us-east-1a/i-0${name.replace(/\W/g, '').padEnd(16, '0').slice(0, 16)}`, {
    ready: 'True',
  });

const cluster = (extra: ReturnType<typeof node>[] = []) => ({
  nodes: [
    node('node-a', `aws:///us-east-1a/${INSTANCE_A}`, { readySince: LONG_AGO }),
    healthy('node-b'),
    healthy('node-c'),
    healthy('node-d'),
    healthy('node-e'),
    ...extra,
  ],
  vas: [va('node-a', 'pv-db'), va('node-x', 'pv-shared'), va('node-y', 'pv-db2')],
  pvs: [pv('pv-db'), pv('pv-db2'), pv('pv-shared', ['ReadWriteMany'])],
});

describe('the health check', () => {
  it('starts fencing a node NotReady past the threshold that holds a ReadWriteOnce volume', async () => {
    const { deps, workflow } = fakeDeps(cluster());

    const report = await healthCheck(deps, SETTINGS, 'tick-1');

    expect(report.outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-a' })]);
    expect([...workflow.runs.values()][0]?.input.trigger).toMatchObject({
      source: 'health-check',
      eventId: 'tick-1',
    });
  });

  it('is idempotent: the next tick finds the run it started', async () => {
    const { deps, workflow } = fakeDeps(cluster());

    await healthCheck(deps, SETTINGS, 'tick-1');
    const second = await healthCheck(deps, SETTINGS, 'tick-2');

    expect(second.outcomes).toEqual([expect.objectContaining({ result: 'duplicate', node: 'node-a' })]);
    expect(workflow.runs.size).toBe(1);
  });

  it.each([
    [
      'NotReady for less than the threshold',
      node('node-x', `aws:///us-east-1a/${INSTANCE_B}`, { readySince: JUST_NOW }),
      /less than 180s/,
    ],
    [
      'holding only a ReadWriteMany volume',
      node('node-x', `aws:///us-east-1a/${INSTANCE_B}`, { readySince: LONG_AGO }),
      /no ReadWriteOnce/,
    ],
    [
      'opted out',
      node('node-y', `aws:///us-east-1a/${INSTANCE_B}`, {
        readySince: LONG_AGO,
        annotations: { 'kube-fencer.io/opt-out': 'true' },
      }),
      /OptedOut/,
    ],
    [
      'a control-plane node',
      node('node-y', `aws:///us-east-1a/${INSTANCE_B}`, {
        readySince: LONG_AGO,
        labels: { 'node-role.kubernetes.io/control-plane': '' },
      }),
      /ControlPlaneNotAllowed/,
    ],
    [
      'already out of service',
      node('node-y', `aws:///us-east-1a/${INSTANCE_B}`, {
        readySince: LONG_AGO,
        taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }],
      }),
      /already out-of-service/,
    ],
  ])('leaves alone a node %s, and says why', async (_name, candidate, why) => {
    const world = cluster([candidate]);
    world.nodes.shift(); // only the candidate is unhealthy
    const { deps, workflow } = fakeDeps(world);

    const report = await healthCheck(deps, SETTINGS, 'tick');

    expect(report.skipped).toEqual([{ node: candidate.name, why: expect.stringMatching(why) }]);
    expect(workflow.runs.size).toBe(0);
  });

  it('fences a node whose out-of-service taint is only NoSchedule (a maintenance mark fences nothing)', async () => {
    const marked = node('node-y', `aws:///us-east-1a/${INSTANCE_B}`, {
      readySince: LONG_AGO,
      taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'maintenance', effect: 'NoSchedule' }],
    });
    const world = cluster([marked]);
    world.nodes.shift(); // only the marked node is unhealthy
    const { deps } = fakeDeps(world);

    const report = await healthCheck(deps, SETTINGS, 'tick');

    expect(report.skipped).toEqual([]);
    expect(report.outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-y' })]);
  });

  it("leaves alone a node marked control plane only by the cluster's own label, when told that label", async () => {
    const candidate = node('node-y', `aws:///us-east-1a/${INSTANCE_B}`, {
      readySince: LONG_AGO,
      labels: { 'example.com/role-etcd': 'true' },
    });
    const world = cluster([candidate]);
    world.nodes.shift();
    const labelled = { ...SETTINGS, controlPlaneLabels: ['example.com/role-etcd'] };

    const told = await healthCheck(fakeDeps(world).deps, labelled, 'tick');
    const untold = await healthCheck(fakeDeps(world).deps, SETTINGS, 'tick');

    expect(told.skipped).toEqual([{ node: 'node-y', why: expect.stringMatching(/ControlPlaneNotAllowed/) }]);
    expect(untold.skipped).toEqual([]);
  });

  it('stands down when too many nodes are unhealthy, and counts the refusal', async () => {
    const world = cluster([node('node-y', `aws:///us-east-1a/${INSTANCE_B}`, { readySince: LONG_AGO })]);
    world.nodes[1] = node('node-b', 'aws:///us-east-1a/i-0bbbbbbbbbbbbbbbb', { readySince: LONG_AGO });
    world.nodes[2] = node('node-c', 'aws:///us-east-1a/i-0cccccccccccccccc', { readySince: LONG_AGO });
    const { deps, workflow, metrics } = fakeDeps(world);

    const report = await healthCheck(deps, SETTINGS, 'tick');

    expect(report.refused).toBe('TooManyUnhealthy');
    expect(workflow.runs.size).toBe(0);
    expect(metrics.counts.get('FencingReasons reason=TooManyUnhealthy')).toBe(1);
  });

  it('starts no more runs than the in-flight limit leaves room for, longest NotReady first', async () => {
    const world = cluster([
      node('node-y', `aws:///us-east-1a/${INSTANCE_B}`, { readySince: '2026-02-02T16:00:00Z' }),
    ]);
    const limits = REQUEST_DEFAULTS.limits;
    // The limit is the cluster's, read with the claims.
    const { deps } = fakeDeps({ ...world, maxInFlight: 1 });

    const report = await healthCheck(
      deps,
      { ...SETTINGS, requestDefaults: { ...REQUEST_DEFAULTS, limits } },
      'tick',
    );

    expect(report.outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-y' })]);
    expect(report.deferred).toEqual(['node-a']);
  });

  it('leaves a node that a run already claims to that run, and counts the claim against the limit', async () => {
    const world = {
      ...cluster(),
      claims: [{ node: 'node-a', runId: 'run-1', renewedAt: '2026-02-02T17:14:50Z' }],
    };
    const { deps, workflow } = fakeDeps(world);

    const report = await healthCheck(deps, SETTINGS, 'tick');

    expect(report.skipped).toEqual([{ node: 'node-a', why: 'a fencing run holds its claim' }]);
    expect(workflow.runs.size).toBe(0);
  });
});

const i = (name: string) => Number(name.split('-')[1]);

describe('what the health check reads', () => {
  /** The fake cluster with every call it receives recorded by method name. */
  const recorded = (world: Parameters<typeof fakeDeps>[0]) => {
    const fake = fakeDeps(world);
    const calls: string[] = [];
    const cluster = new Proxy(fake.deps.cluster, {
      get(target, key, receiver) {
        const method = Reflect.get(target, key, receiver) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => {
          calls.push(String(key));
          return method.apply(target, args);
        };
      },
    });
    return { ...fake, deps: { ...fake.deps, cluster }, calls };
  };

  it('with every node Ready reads only the nodes’ readiness: no node, claim, VolumeAttachment or PV', async () => {
    const world = cluster();
    world.nodes[0] = healthy('node-a');
    const { deps, calls } = recorded(world);

    const report = await healthCheck(deps, SETTINGS, 'tick');

    expect(calls).toEqual(['listNodeReadiness']);
    expect(report).toMatchObject({ totalNodes: 5, unhealthy: [], outcomes: [], skipped: [] });
  });

  it('reads a node NotReady for less than the threshold afresh, and nothing about its volumes', async () => {
    const world = cluster();
    world.nodes[0] = node('node-a', `aws:///us-east-1a/${INSTANCE_A}`, { readySince: JUST_NOW });
    const { deps, calls } = recorded(world);

    const report = await healthCheck(deps, SETTINGS, 'tick');

    expect(calls).toEqual(['listNodeReadiness', 'getNode']);
    expect(report.skipped).toEqual([{ node: 'node-a', why: expect.stringMatching(/less than 180s/) }]);
  });

  it('leaves alone a node the readiness list showed NotReady but that is Ready when read again', async () => {
    const world = cluster();
    const { deps, workflow } = recorded(world);
    // The list comes from the API server's watch cache: the node recovered since.
    const stale = deps.cluster.listNodeReadiness();
    world.nodes[0] = healthy('node-a');
    deps.cluster.listNodeReadiness = () => stale;

    const report = await healthCheck(deps, SETTINGS, 'tick');

    expect(report.unhealthy).toEqual(['node-a']);
    expect(report.outcomes).toEqual([]);
    expect(workflow.runs.size).toBe(0);
  });

  it('reads the VolumeAttachments of the candidates only, and each of their PVs once', async () => {
    const world = cluster();
    const { deps, calls } = recorded(world);
    let filter: unknown;
    const list = deps.cluster.listVolumeAttachments;
    deps.cluster.listVolumeAttachments = (f) => {
      filter = f;
      return list(f);
    };

    await healthCheck(deps, SETTINGS, 'tick');

    expect(filter).toEqual({ nodeNames: ['node-a'] });
    expect(calls.filter((c) => c === 'getPersistentVolume')).toHaveLength(1);
  });

  it('lists the PVs once instead of reading more than a hundred one by one', async () => {
    const world = cluster();
    const many = Array.from({ length: 101 }, (_, i) => `pv-${i}`);
    const { deps, calls, workflow } = recorded({
      ...world,
      vas: many.map((name) => va('node-a', name)),
      pvs: many.map((name) => pv(name, i(name) === 100 ? ['ReadWriteOnce'] : ['ReadWriteMany'])),
    });

    const report = await healthCheck(deps, SETTINGS, 'tick');

    expect(calls.filter((c) => c.endsWith('PersistentVolume') || c.endsWith('PersistentVolumes'))).toEqual([
      'listPersistentVolumes',
    ]);
    expect(report.outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-a' })]);
    expect(workflow.runs.size).toBe(1);
  });
});
