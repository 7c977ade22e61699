/**
 * What a new leader takes over: a run an earlier leader had only claimed is adopted when the claim's run
 * id is the one this controller names for the node's incident, and only then (another deployment's run,
 * a Function Compute run, an older incident's run are theirs); a checkpoint on a node is continued only
 * when it is a controller run's and sealed with this deployment's key.
 */
import { describe, expect, it } from 'vitest';
import { controllerRunId } from '../../../../lib/app/controller/in-process-workflow.js';
import { takeOverRuns } from '../../../../lib/app/controller/resume.js';
import type { RunCheckpoints } from '../../../../lib/app/fence/run-checkpoint.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { incidentOf, runName } from '../../../../lib/app/triggers/start-run.js';
import { DEFAULT_LIMITS } from '../../../../lib/domain/request.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type { Cluster, NodeView } from '../../../../lib/ports/cluster.js';
import type { FenceRunInput, StartResult, Workflow } from '../../../../lib/ports/workflow.js';

const defaults = {
  dryRun: false,
  strategy: 'auto' as const,
  accelerate: true,
  allowTerminate: false,
  skipOsShutdown: false,
  forceDeleteTolerating: false,
  limits: DEFAULT_LIMITS,
};

const nodeA: NodeView = {
  name: 'node-a',
  uid: 'uid-a',
  resourceVersion: '7',
  createdAt: '2026-12-05T08:00:00.000Z',
  addresses: [],
  ready: 'Unknown',
  readySince: '2026-12-05T09:00:00.000Z',
  providerId: 'aws:///us-east-1a/i-0123456789abcdef0',
  unschedulable: false,
  labels: {},
  annotations: {},
  taints: [],
};

const ourName = runName({ ...defaults, node: 'node-a', cluster: 'lab' }, incidentOf(nodeA));

function world(node: NodeView, claimRunId: string | null, read: RunCheckpoints['read'] = async () => null) {
  const started: { name: string; input: FenceRunInput }[] = [];
  const workflow: Workflow = {
    start: async (name, input): Promise<StartResult> => {
      started.push({ name, input });
      return { kind: 'started', runId: controllerRunId(name) };
    },
  };
  const warnings: string[] = [];
  const cluster: Partial<Cluster> = {
    listNodeReadiness: async () => [
      { name: node.name, ready: node.ready === 'True' },
      { name: 'node-b', ready: true },
    ],
    getNode: async (name) => (name === node.name ? node : null),
    listFencingClaims: async () => ({
      claims: claimRunId
        ? [{ node: node.name, runId: claimRunId, renewedAt: '2026-12-05T09:01:00.000Z' }]
        : [],
      maxInFlight: 1,
      serverTime: '2026-12-05T09:01:10.000Z',
    }),
  };
  const deps = {
    cluster: cluster as Cluster,
    compute: { forProviderId: () => null },
    clock: { now: () => new Date('2026-12-05T09:01:10.000Z') },
    log: { info() {}, warn: (m: string) => warnings.push(m), error() {} },
    metrics: new InMemoryMetrics(),
  } as FencerDeps;
  const checkpointsFor = (): RunCheckpoints => ({
    read,
    record: async () => false,
    clear: async () => false,
  });
  const settings = { cluster: 'lab', requestDefaults: defaults, checkpointsFor };
  return { run: () => takeOverRuns(deps, workflow, settings), started, warnings };
}

describe('taking over from an earlier leader', () => {
  it('adopts a claim held under the run id this controller names for the node’s incident', async () => {
    const w = world(nodeA, controllerRunId(ourName));
    expect(await w.run()).toEqual(['node-a']);
    expect(w.started.map((s) => s.name)).toEqual([ourName]);
    expect(w.started[0]?.input.request).toMatchObject({ node: 'node-a', cluster: 'lab' });
  });

  it('adopts the retry of the incident too (its second run name)', async () => {
    const retry = runName({ ...defaults, node: 'node-a', cluster: 'lab' }, incidentOf(nodeA), 2);
    const w = world(nodeA, controllerRunId(retry));
    await w.run();
    expect(w.started.map((s) => s.name)).toEqual([retry]);
  });

  it('leaves alone the claims of other runners and of other incidents', async () => {
    const olderIncident = runName(
      { ...defaults, node: 'node-a', cluster: 'lab' },
      'uid-a@2026-12-01T00:00:00Z',
    );
    for (const runId of [
      ourName, // a Step Functions execution of the same name
      `kf-${ourName}`, // a Function Compute task
      controllerRunId(olderIncident),
      controllerRunId(
        runName({ ...defaults, dryRun: true, node: 'node-a', cluster: 'lab' }, incidentOf(nodeA)),
      ),
      'cli-3f0c1d1e-0000-4000-8000-000000000000',
    ]) {
      const w = world(nodeA, runId);
      expect(await w.run()).toEqual([]);
      expect(w.started).toEqual([]);
    }
  });

  it('continues nothing from a checkpoint that is not a controller run’s, nor one whose seal does not verify', async () => {
    const forged = JSON.stringify({ history: { runId: controllerRunId(ourName) }, seal: 'forged' });
    const fcRun = JSON.stringify({ history: { runId: `kf-${ourName}` } });
    for (const annotation of [forged, fcRun, 'not json']) {
      const node = { ...nodeA, annotations: { 'kube-fencer.io/run-checkpoint': annotation } };
      // The codec finds no checkpoint of the run it can trust (a forged seal reads as none, loudly, on the Node).
      const w = world(node, null, async () => null);
      expect(await w.run()).toEqual([]);
      expect(w.started).toEqual([]);
    }
  });

  it('continues a sealed checkpoint of a controller run under its own name, with the request it recorded', async () => {
    const runId = controllerRunId(ourName);
    const node = {
      ...nodeA,
      annotations: { 'kube-fencer.io/run-checkpoint': JSON.stringify({ history: { runId } }) },
    };
    const request = {
      ...defaults,
      node: 'node-a',
      cluster: 'lab',
      limits: { ...DEFAULT_LIMITS, leaseGraceSeconds: 120 },
    };
    const reads: string[] = [];
    const w = world(node, runId, async (_node, id) => {
      reads.push(id);
      return { request, history: { runId } as never, decision: null, writtenAt: '2026-12-05T09:01:00.000Z' };
    });
    expect(await w.run()).toEqual(['node-a']);
    expect(reads).toEqual([runId]);
    // Once, from the checkpoint (with its own request), not again from the claim.
    expect(w.started.map((s) => [s.name, s.input.request.limits.leaseGraceSeconds])).toEqual([
      [ourName, 120],
    ]);
  });
});
