/**
 * One fence step around decide(): the re-read right before acting, what a dry run and a bad request may
 * write (nothing), the audit of a step that throws, a machine that cannot be stopped, and whose words a
 * step result quotes. The cluster and the provider are in-memory fakes: these are the app's own choices.
 */
import { describe, expect, it } from 'vitest';
import { type FenceStepState, fenceStep } from '../../../../lib/app/fence/fence-step.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { DEFAULT_LIMITS, type FenceRequest, startRun } from '../../../../lib/domain/index.js';
import { ClaimTtlSeconds, PollSeconds } from '../../../../lib/domain/timing.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type { ClaimResult, Cluster, LeaseRead, NodeEvent, NodeView } from '../../../../lib/ports/cluster.js';
import type {
  ComputeFencer,
  InstanceInspection,
  PowerOffOutcome,
} from '../../../../lib/ports/compute-fencer.js';
import type { StorageFenceTarget } from '../../../../lib/ports/storage-fencer.js';
import { inspectionOf, recordingCephFencer } from '../support/ports.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const INSTANCE = 'i-0123456789abcdef0';
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();

const deadNode = (): NodeView => ({
  name: 'node-a',
  uid: 'uid-a',
  resourceVersion: '7',
  createdAt: ago(90_000),
  ready: 'Unknown',
  readyReason: 'NodeStatusUnknown',
  lastHeartbeat: ago(600),
  addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
  providerId: `aws:///us-east-1a/${INSTANCE}`,
  unschedulable: false,
  labels: {},
  annotations: {},
  taints: [],
});

interface Fakes {
  readonly deps: FencerDeps;
  readonly events: NodeEvent[];
  readonly calls: string[];
  readonly claims: { node: string; runId: string; ttlSeconds: number }[];
  readonly reads: string[];
  readonly metrics: InMemoryMetrics;
  readonly logs: { level: string; message: string }[];
}

interface FakeOptions {
  /** Lease renewal times, one per read (the last repeats). */
  readonly leases?: readonly (string | null)[];
  readonly node?: NodeView | null;
  readonly powerOff?: PowerOffOutcome;
  readonly inspect?: () => Promise<InstanceInspection>;
  /** Listing the node's VolumeAttachments fails with this. */
  readonly listError?: Error;
  /** What claiming the right to fence answers; granted by default. */
  readonly claim?: ClaimResult;
  /** The fencer's clock; NOW by default. */
  readonly now?: Date;
}

function fakes(options: FakeOptions = {}): Fakes {
  const events: NodeEvent[] = [];
  const calls: string[] = [];
  const claims: { node: string; runId: string; ttlSeconds: number }[] = [];
  /** Reads of the Node object and of the machine's disks, in order. */
  const reads: string[] = [];
  const logs: { level: string; message: string }[] = [];
  let leaseReads = 0;
  const leases = options.leases ?? [ago(600)];
  const node = options.node === undefined ? deadNode() : options.node;
  const cluster: Partial<Cluster> = {
    getNode: async () => {
      reads.push('getNode');
      return node;
    },
    getNodeLease: async (): Promise<LeaseRead> => {
      const renewTime = leases[Math.min(leaseReads++, leases.length - 1)] ?? null;
      return { lease: renewTime === null ? null : { renewTime }, servedAt: NOW.toISOString() };
    },
    getCSINode: async () => null,
    listNodes: async () =>
      node
        ? [node, { ...deadNode(), name: 'node-b', uid: 'uid-b', ready: 'True', providerId: undefined }]
        : [],
    serverVersion: async () => ({ major: 1, minor: 36, gitVersion: 'v1.36.3' }),
    listFencingClaims: async () => ({ claims: [], maxInFlight: 1, serverTime: NOW.toISOString() }),
    listPodsOnNode: async () => [],
    listVolumeAttachments: async () => {
      if (options.listError) throw options.listError;
      return [];
    },
    claimFencing: async (node, runId, claimOptions) => {
      calls.push('claimFencing');
      claims.push({ node, runId, ttlSeconds: claimOptions.ttlSeconds });
      return options.claim ?? { granted: true, inFlight: ['node-a'] };
    },
    addTaint: async () => {
      calls.push('addTaint');
      return 'added';
    },
    releaseFencing: async () => {
      calls.push('releaseFencing');
    },
    recordNodeEvent: async (_, event) => {
      events.push(event);
    },
  };
  const inspection = inspectionOf(INSTANCE, NOW.toISOString());
  const fencer: Partial<ComputeFencer> = {
    provider: 'aws',
    parseProviderId: () => ({ provider: 'aws', instanceId: INSTANCE, zone: 'us-east-1a' }),
    inspect: options.inspect ?? (async () => inspection),
    attachedDisks: async () => {
      reads.push('attachedDisks');
      return [];
    },
    powerOff: async (_, opts) => {
      calls.push(`powerOff${opts.dryRun ? ' (dry run)' : ''}`);
      return options.powerOff ?? { kind: 'requested', action: 'stop', previousState: 'stopped' };
    },
  };
  const metrics = new InMemoryMetrics();
  const deps: FencerDeps = {
    cluster: cluster as Cluster,
    compute: { forProviderId: (id) => (id.startsWith('aws://') ? (fencer as ComputeFencer) : null) },
    clock: { now: () => options.now ?? NOW },
    log: {
      info: (message) => logs.push({ level: 'info', message }),
      warn: (message) => logs.push({ level: 'warn', message }),
      error: (message) => logs.push({ level: 'error', message }),
    },
    metrics,
  };
  return { deps, events, calls, claims, reads, metrics, logs };
}

const request = (overrides: Partial<FenceRequest> = {}): FenceRequest => ({
  node: 'node-a',
  cluster: 'lab',
  dryRun: false,
  strategy: 'auto',
  accelerate: true,
  allowTerminate: false,
  skipOsShutdown: false,
  forceDeleteTolerating: false,
  limits: DEFAULT_LIMITS,
  ...overrides,
});

const firstStep = (overrides: Partial<FenceRequest> = {}): FenceStepState => ({
  request: request(overrides),
  history: startRun('run-1', NOW.toISOString()),
  decision: null,
});

describe('a fence step', () => {
  it('powers off a dead node after reading it twice, and quotes its own reading of the machine', async () => {
    const { deps, calls } = fakes();
    const next = await fenceStep(deps, firstStep());
    expect(calls).toEqual(['claimFencing', 'powerOff']);
    // The provider said it was "stopped" before; the step says what it saw itself.
    expect(next.decision?.actionResult).toBe(
      `${INSTANCE}: stop requested; it was running when observed at ${NOW.toISOString()}`,
    );
  });

  it('re-reads the node right before the power-off and stops if its Lease was renewed meanwhile', async () => {
    // Stale on the first read; renewed by the time the provider answered.
    const { deps, calls } = fakes({ leases: [ago(600), ago(2)] });
    const next = await fenceStep(deps, firstStep());
    expect(calls).toEqual([]);
    expect(next.decision).toMatchObject({ outcome: 'refused', reason: 'LeaseFresh', action: null });
  });

  it("ages the Lease on the API server's clock: a fencer whose clock runs minutes fast or slow decides as a true one", async () => {
    // The API server served the Lease at NOW; the kubelet renewed it 5 s before that.
    for (const skewSeconds of [120, -120, 3600]) {
      const fresh = fakes({ leases: [ago(5)], now: new Date(NOW.getTime() + skewSeconds * 1000) });
      const refused = await fenceStep(fresh.deps, firstStep());
      expect(refused.decision, `fencer clock ${skewSeconds} s off`).toMatchObject({
        outcome: 'refused',
        reason: 'LeaseFresh',
        action: null,
      });
      expect(fresh.calls).toEqual([]);
    }
    // Silent for 10 minutes by the server's clock: fenced, even by a fencer whose clock is 2 minutes slow.
    const silent = fakes({ leases: [ago(600)], now: new Date(NOW.getTime() - 120_000) });
    await fenceStep(silent.deps, firstStep());
    expect(silent.calls).toEqual(['claimFencing', 'powerOff']);
  });

  it('writes nothing in a dry run: no Event, no claim, only the provider’s own dry run', async () => {
    const { deps, calls, events } = fakes({
      powerOff: { kind: 'dry-run', action: 'stop', wouldSucceed: true, detail: 'ok' },
    });
    const next = await fenceStep(deps, firstStep({ dryRun: true }));
    expect(next.decision?.outcome).toBe('dry-run');
    expect(calls).toEqual(['powerOff (dry run)']);
    expect(events).toEqual([]);
  });

  it('writes nothing for a node that does not exist, not even an Event, and refuses it', async () => {
    const { deps, calls, events } = fakes({ node: null });
    const next = await fenceStep(deps, firstStep());
    expect(next.decision).toMatchObject({ outcome: 'refused', reason: 'NodeNotFound' });
    expect(calls).toEqual([]);
    expect(events).toEqual([]);
  });

  it('ends the run with InstanceNotStoppable when the provider refuses to stop the machine', async () => {
    const { deps, calls } = fakes({ powerOff: { kind: 'not-stoppable', detail: 'stop protection is on' } });
    const next = await fenceStep(deps, firstStep());
    expect(next.decision).toMatchObject({ outcome: 'refused', reason: 'InstanceNotStoppable', done: true });
    expect(next.decision?.message).toContain('stop protection is on');
    expect(next.history.decidedToFenceAt).toBeNull();
    expect(calls).toEqual(['claimFencing', 'powerOff', 'releaseFencing']);
  });

  it('audits a step that throws before it could decide (log, metric, Event on the node), then rethrows', async () => {
    const boom = Object.assign(new Error('API server unreachable'), { name: 'KubernetesApiError' });
    const { deps, events, metrics, logs } = fakes({ listError: boom });
    await expect(fenceStep(deps, firstStep())).rejects.toBe(boom);
    expect(events).toMatchObject([
      {
        type: 'Warning',
        reason: 'FencingError',
        message: expect.stringContaining('StepError: KubernetesApiError'),
      },
    ]);
    expect(metrics.counts.get('FencingErrors error=KubernetesApiError')).toBe(1);
    expect(logs).toContainEqual({ level: 'error', message: 'step failed before it could decide' });
  });

  it('writes no Event for a step that throws in a dry run', async () => {
    const boom = Object.assign(new Error('no answer'), { name: 'KubernetesApiError' });
    const { deps, events, metrics } = fakes({ listError: boom });
    await expect(fenceStep(deps, firstStep({ dryRun: true }))).rejects.toBe(boom);
    expect(events).toEqual([]);
    expect(metrics.counts.get('FencingErrors error=KubernetesApiError')).toBe(1);
  });

  it('bounds the provider read of a step: an answer that never comes is a fault, not a hang', async () => {
    const { deps, calls } = fakes({
      inspect: () =>
        new Promise((_, reject) =>
          setTimeout(() => reject(Object.assign(new Error('aborted'), { name: 'TimeoutError' })), 5),
        ),
    });
    const next = await fenceStep(deps, firstStep());
    expect(calls).toEqual([]);
    expect(next.decision).toMatchObject({ outcome: 'in-progress', reason: 'ProviderApiError', action: null });
  });
});

describe('a fence step and the claim on the right to fence', () => {
  it('claims the node for its run, with the workflow’s TTL unless the runner says otherwise', async () => {
    const workflow = fakes();
    await fenceStep(workflow.deps, firstStep());
    expect(workflow.claims).toEqual([
      { node: 'node-a', runId: 'run-1', ttlSeconds: ClaimTtlSeconds.Workflow },
    ]);

    const inProcess = fakes();
    await fenceStep(inProcess.deps, firstStep(), { claimTtlSeconds: ClaimTtlSeconds.InProcess });
    expect(inProcess.claims).toEqual([
      { node: 'node-a', runId: 'run-1', ttlSeconds: ClaimTtlSeconds.InProcess },
    ]);
  });

  it('refuses, powering nothing off, when the in-flight limit is reached as it would commit', async () => {
    const { deps, calls, events } = fakes({
      claim: { granted: false, reason: 'in-flight-limit', inFlight: ['node-b', 'node-c'] },
    });
    const next = await fenceStep(deps, firstStep());

    expect(calls).toEqual(['claimFencing']);
    expect(next.decision).toMatchObject({
      phase: 'Refused',
      done: true,
      outcome: 'refused',
      reason: 'TooManyInFlight',
      waitSeconds: 0,
      rule: 'in-flight-limit-before-commit',
      action: null,
    });
    expect(next.decision?.message).toMatch(/\(in flight: node-b, node-c\)$/);
    expect(next.history.steps.at(-1)).toMatchObject({ phase: 'Refused', reason: 'TooManyInFlight' });
    expect(events).toMatchObject([{ type: 'Warning', reason: 'FencingRefused' }]);
  });

  it('waits, keeping its history, while another run holds the node', async () => {
    const { deps, calls } = fakes({ claim: { granted: false, reason: 'claimed-by-other', holder: 'run-9' } });
    const state = firstStep();
    const next = await fenceStep(deps, state);

    expect(calls).toEqual(['claimFencing']);
    expect(next.decision).toMatchObject({
      phase: 'Assess',
      done: false,
      outcome: 'in-progress',
      reason: 'AlreadyInProgress',
      waitSeconds: 5,
      action: null,
    });
    expect(next.decision?.message).toMatch(/\(run run-9\)$/);
    // How long the step took, not a clock reading: whatever the machine's speed, far less than a day.
    expect(next.decision?.tookMs).toBeGreaterThanOrEqual(0);
    expect(next.decision?.tookMs).toBeLessThan(86_400_000);
    expect(next.history).toBe(state.history);
  });

  it('waits in its own phase, never refusing, when it loses the slot after it committed', async () => {
    const { deps, calls } = fakes({
      claim: { granted: false, reason: 'in-flight-limit', inFlight: ['node-b'] },
    });
    // First step with the claim granted: the run commits and powers off.
    const granted = fakes();
    const committed = await fenceStep(granted.deps, firstStep());
    expect(committed.history.decidedToFenceAt).not.toBeNull();

    const next = await fenceStep(deps, committed);
    expect(calls).toEqual(['claimFencing']);
    expect(next.decision).toMatchObject({
      phase: committed.history.steps.at(-1)?.phase,
      done: false,
      outcome: 'in-progress',
      reason: 'TooManyInFlight',
    });
    expect(next.history).toBe(committed.history);
  });
});

describe('a fence step and the run checkpoint', () => {
  it('hands the runner the committed state right before a real power-off', async () => {
    const { deps, calls } = fakes();
    const seen: FenceStepState[] = [];
    await fenceStep(deps, firstStep(), {
      beforeAction: async (state) => {
        calls.push('checkpoint');
        seen.push(state);
      },
    });
    expect(calls).toEqual(['claimFencing', 'checkpoint', 'powerOff']);
    expect(seen[0]?.history.decidedToFenceAt).not.toBeNull();
    expect(seen[0]?.decision).toBeNull();
  });

  it('writes no checkpoint for a provider dry run, nor when a step has nothing to do', async () => {
    const dry = fakes({ powerOff: { kind: 'dry-run', action: 'stop', wouldSucceed: true, detail: 'ok' } });
    let checkpoints = 0;
    const count = { beforeAction: async () => void checkpoints++ };
    await fenceStep(dry.deps, firstStep({ dryRun: true }), count);
    const live = fakes({ leases: [ago(2)] });
    await fenceStep(live.deps, firstStep(), count);
    expect(checkpoints).toBe(0);
  });

  it('fails the run (it had committed) when the provider will not stop the machine on a later attempt', async () => {
    const granted = fakes({ powerOff: { kind: 'requested', action: 'stop', previousState: 'running' } });
    const committed = await fenceStep(granted.deps, firstStep());
    // The stop was not acted on: past the retry interval the step asks again, and now it is refused.
    const stubborn = fakes({
      powerOff: { kind: 'not-stoppable', detail: 'stop protection is on' },
      now: new Date(NOW.getTime() + (PollSeconds.PowerOffRetry + 1) * 1000),
    });
    const next = await fenceStep(stubborn.deps, committed);

    expect(stubborn.calls).toEqual(['claimFencing', 'powerOff', 'releaseFencing']);
    expect(next.decision).toMatchObject({
      phase: 'Failed',
      done: true,
      reason: 'InstanceNotStoppable',
      waitSeconds: 0,
    });
    expect(next.decision?.message).toContain('stop protection is on');
    expect(next.history.steps.at(-1)).toMatchObject({ phase: 'Failed', reason: 'InstanceNotStoppable' });
  });
});

describe('what a fence step reads', () => {
  it('reads the node again right before a real action, and only then', async () => {
    const acting = fakes();
    await fenceStep(acting.deps, firstStep());
    expect(acting.reads).toEqual(['getNode', 'getNode']);

    // A provider dry run changes nothing: no second look is needed.
    const dry = fakes({ powerOff: { kind: 'dry-run', action: 'stop', wouldSucceed: true, detail: 'ok' } });
    await fenceStep(dry.deps, firstStep({ dryRun: true }));
    expect(dry.reads).toEqual(['getNode']);

    // A live node: nothing to do, nothing to read again.
    const live = fakes({ leases: [ago(2)] });
    await fenceStep(live.deps, firstStep());
    expect(live.reads).toEqual(['getNode']);
  });

  it('asks the provider for the machine’s disks only once the run holds a proof of off', async () => {
    const first = fakes();
    const committed = await fenceStep(first.deps, firstStep());
    expect(first.reads).not.toContain('attachedDisks');

    const later = new Date(NOW.getTime() + 5_000);
    const stopped = async () =>
      inspectionOf(INSTANCE, later.toISOString(), { state: 'stopped', providerState: 'stopped' });
    const proving = fakes({ inspect: stopped, now: later });
    const proven = await fenceStep(proving.deps, committed);
    expect(proving.reads).not.toContain('attachedDisks');
    expect(proven.history.proofOfOff).not.toBeNull();

    const draining = fakes({ inspect: stopped, now: later });
    await fenceStep(draining.deps, proven);
    expect(draining.reads).toContain('attachedDisks');
  });
});

/** A run that committed (a minute ago) to the isolation `plan`, its witness having shown `witnessed`. */
const committed = (
  plan: { machine: boolean; storage: boolean },
  witnessed?: readonly string[],
): FenceStepState => ({
  request: request(),
  history: {
    ...startRun('run-1', ago(120)),
    target: { node: 'node-a', nodeUid: 'uid-a', provider: 'aws', instanceId: INSTANCE },
    decidedToFenceAt: ago(60),
    isolation: { ...plan, watch: false },
    storageBefore: [],
    ...(witnessed ? { witnessed } : {}),
  },
  decision: null,
});

describe('what a committed step asks the storage cluster', () => {
  /** The fakes' dependencies with a Ceph storage fencer that records each verify. */
  function withCeph() {
    const { deps } = fakes();
    const verified: StorageFenceTarget[] = [];
    return { deps: { ...deps, storage: [recordingCephFencer(verified, NOW.toISOString())] }, verified };
  }

  it('reads the blocklist for a run committed to a storage fence even once the node holds no image, with the addresses its witness showed', async () => {
    const { deps, verified } = withCeph();
    await fenceStep(deps, committed({ machine: false, storage: true }, ['10.20.0.7']));
    expect(verified).toEqual([
      { node: 'node-a', addresses: ['10.0.0.5'], declared: [], witnessed: ['10.20.0.7'] },
    ]);
  });

  it('leaves the storage cluster alone in a run committed to the machine only, whose node holds no image', async () => {
    const { deps, verified } = withCeph();
    const next = await fenceStep(deps, committed({ machine: true, storage: false }));
    expect(next.decision).toMatchObject({ rule: 'confirm-off', action: 'power-off' });
    expect(verified).toEqual([]);
  });
});
