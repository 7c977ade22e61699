/**
 * One un-fence step around decideUnfence(): it removes exactly the fencer's own taint once the node is
 * back after a power cycle, records the step as an Event, writes nothing at all in a dry run or for a
 * node that does not exist, and audits a step that throws. The cluster and the provider are in-memory
 * fakes; the lab's un-fence is test/e2e/fence.test.ts and adversarial/ownership.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { type UnfenceStepState, unfenceStep } from '../../../../lib/app/unfence/unfence-step.js';
import { FENCER_ANNOTATION, type FenceRecord, startRun } from '../../../../lib/domain/index.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type { Cluster, NodeEvent, NodeView, Taint } from '../../../../lib/ports/cluster.js';
import type { ComputeFencer } from '../../../../lib/ports/compute-fencer.js';
import { inspectionOf } from '../support/ports.js';

const NOW = new Date('2026-03-01T13:00:00.000Z');
const INSTANCE = 'i-0123456789abcdef0';
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
const FENCED_AT = '2026-03-01T12:00:05Z';
const OUR_TAINT: Taint = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
  timeAdded: FENCED_AT,
};
const RECORD: FenceRecord = {
  runId: 'run-0',
  fencedAt: FENCED_AT,
  instanceId: INSTANCE,
  proof: 'stopped',
  taint: { key: OUR_TAINT.key, value: 'nodeshutdown', effect: 'NoExecute', timeAdded: FENCED_AT },
};

/** node-a back after a power cycle: Ready, heartbeating, still carrying the fencer's taint and record. */
const backNode = (): NodeView => ({
  name: 'node-a',
  uid: 'uid-a',
  resourceVersion: '90',
  createdAt: ago(90_000),
  ready: 'True',
  readySince: ago(60),
  lastHeartbeat: ago(5),
  addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
  providerId: `aws:///us-east-1a/${INSTANCE}`,
  unschedulable: false,
  labels: {},
  annotations: { [FENCER_ANNOTATION.fenceRecord]: JSON.stringify(RECORD) },
  taints: [OUR_TAINT],
});

interface Options {
  readonly node?: NodeView | null;
  /** The instance's last start; after the fence by default. */
  readonly launchTime?: string;
  readonly listError?: Error;
}

function fakes(options: Options = {}) {
  const events: NodeEvent[] = [];
  const writes: { method: string; args: unknown[] }[] = [];
  const providerReads: string[] = [];
  const node = options.node === undefined ? backNode() : options.node;
  const cluster: Partial<Cluster> = {
    getNode: async () => node,
    getNodeLease: async () => ({ lease: { renewTime: ago(3) }, servedAt: NOW.toISOString() }),
    getCSINode: async () => null,
    listNodes: async () => {
      if (options.listError) throw options.listError;
      return node ? [node] : [];
    },
    serverVersion: async () => ({ major: 1, minor: 36, gitVersion: 'v1.36.3' }),
    listFencingClaims: async () => ({ claims: [], maxInFlight: 1, serverTime: NOW.toISOString() }),
    listPodsOnNode: async () => [],
    listVolumeAttachments: async () => [],
    removeTaint: async (...args) => {
      writes.push({ method: 'removeTaint', args });
      return 'removed';
    },
    annotateNode: async (...args) => {
      writes.push({ method: 'annotateNode', args });
    },
    recordNodeEvent: async (_, event) => {
      events.push(event);
    },
  };
  const inspection = inspectionOf(INSTANCE, NOW.toISOString(), {
    launchTime: options.launchTime ?? ago(120),
  });
  const fencer: Partial<ComputeFencer> = {
    provider: 'aws',
    parseProviderId: () => ({ provider: 'aws', instanceId: INSTANCE, zone: 'us-east-1a' }),
    inspect: async () => {
      providerReads.push('inspect');
      return inspection;
    },
    attachedDisks: async () => {
      providerReads.push('attachedDisks');
      return [];
    },
    powerOff: async () => {
      writes.push({ method: 'powerOff', args: [] });
      return { kind: 'already-off', state: 'stopped' };
    },
  };
  const metrics = new InMemoryMetrics();
  const deps: FencerDeps = {
    cluster: cluster as Cluster,
    compute: { forProviderId: (id) => (id.startsWith('aws://') ? (fencer as ComputeFencer) : null) },
    clock: { now: () => NOW },
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    metrics,
  };
  return { deps, events, writes, providerReads, metrics };
}

const firstStep = (dryRun = false): UnfenceStepState => ({
  request: { node: 'node-a', cluster: 'lab', dryRun, waitSeconds: 600 },
  history: startRun('run-1', NOW.toISOString()),
  decision: null,
});

describe('an un-fence step', () => {
  it('removes exactly its own taint and its record once the node is back after a power cycle, and says so', async () => {
    const { deps, writes, events, providerReads } = fakes();
    const next = await unfenceStep(deps, firstStep());

    expect(writes).toEqual([
      {
        method: 'removeTaint',
        args: [
          'node-a',
          OUR_TAINT,
          [FENCER_ANNOTATION.fenceRecord],
          { dryRun: false, expectedResourceVersion: '90' },
        ],
      },
    ]);
    expect(next.decision).toMatchObject({
      action: 'remove-taint',
      actionResult: "node-a: the fencer's out-of-service taint removed",
    });
    expect(next.request).toEqual(firstStep().request);
    // One provider read (power, ownership, identity); an un-fence never needs the machine's disks.
    expect(providerReads).toEqual(['inspect']);
    expect(events.map((e) => e.type)).toEqual(['Normal']);
  });

  it('in a dry run writes nothing: no taint removed, no Event', async () => {
    const { deps, writes, events } = fakes();
    const next = await unfenceStep(deps, firstStep(true));

    expect(writes).toEqual([]);
    expect(events).toEqual([]);
    expect(next.decision).toMatchObject({ outcome: 'dry-run', done: true, action: null });
    expect(next.decision?.message).toContain('would remove the out-of-service taint');
  });

  it('keeps the taint while the instance has not started again since the fence', async () => {
    const { deps, writes } = fakes({ launchTime: '2026-03-01T11:00:00Z' });
    const next = await unfenceStep(deps, firstStep());

    expect(writes).toEqual([]);
    expect(next.decision?.action).toBeNull();
    expect(next.decision).toMatchObject({ reason: 'NoPowerCycleSinceFence', done: false, waitSeconds: 15 });
  });

  it('refuses a node that does not exist and writes nothing, not even an Event', async () => {
    const { deps, writes, events } = fakes({ node: null });
    const next = await unfenceStep(deps, firstStep());

    expect(next.decision).toMatchObject({ outcome: 'refused', reason: 'NodeNotFound' });
    expect(writes).toEqual([]);
    expect(events).toEqual([]);
  });

  it('audits a step that throws (a Warning Event on the node, a failure metric), then rethrows', async () => {
    const boom = Object.assign(new Error('API server unreachable'), { name: 'KubernetesApiError' });
    const { deps, events, writes, metrics } = fakes({ listError: boom });

    await expect(unfenceStep(deps, firstStep())).rejects.toBe(boom);
    expect(events).toMatchObject([{ type: 'Warning', reason: 'FencingError' }]);
    expect(writes).toEqual([]);
    expect(metrics.counts.get('FencingErrors error=KubernetesApiError')).toBe(1);
  });

  it('in a dry run audits a throw without writing an Event, and still rethrows', async () => {
    const boom = new Error('API server unreachable');
    const { deps, events } = fakes({ listError: boom });

    await expect(unfenceStep(deps, firstStep(true))).rejects.toBe(boom);
    expect(events).toEqual([]);
  });
});
