/**
 * The in-process fence loop (the CLI's, lib/app/fence/run-loop.ts) on the in-memory world of the crash
 * tests: steps until the run ends, progress and state handed out after each step, a retryable error
 * retried from the same state, any other error (or a timeout, or an abort) ending the run with its
 * claim given back and the timeout audited, and a resumed history accepted only from its own run.
 * The CLI runs the same loop against the lab in test/e2e/fence.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FenceStepState } from '../../../../lib/app/fence/fence-step.js';
import type { StepDecision } from '../../../../lib/app/fence/outcome.js';
import { runFence, runUnfence } from '../../../../lib/app/fence/run-loop.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { startRun } from '../../../../lib/domain/history.js';
import { ClaimTtlSeconds } from '../../../../lib/domain/timing.js';
import type {
  Cluster,
  NodeEvent,
  PersistentVolumeView,
  VolumeAttachmentView,
} from '../../../../lib/ports/cluster.js';
import type { ComputeFencer } from '../../../../lib/ports/compute-fencer.js';
import { CrashWorld, request } from '../support/crash-world.js';

const RUN = 'run-loop-1';

/** The world's dependencies, with the log kept and some of the cluster's calls replaced. */
function depsOf(world: CrashWorld, cluster: Partial<Cluster> = {}) {
  const base = world.deps();
  const logs: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const ttls: number[] = [];
  const claimFencing = base.cluster.claimFencing.bind(base.cluster);
  const deps: FencerDeps = {
    ...base,
    cluster: {
      ...base.cluster,
      claimFencing: (node, runId, options) => {
        ttls.push(options.ttlSeconds);
        return claimFencing(node, runId, options);
      },
      ...cluster,
    } as Cluster,
    log: {
      info: (message, fields) =>
        logs.push({ level: 'info', message, ...(fields ? { fields: { ...fields } } : {}) }),
      warn: (message, fields) =>
        logs.push({ level: 'warn', message, ...(fields ? { fields: { ...fields } } : {}) }),
      error: (message, fields) =>
        logs.push({ level: 'error', message, ...(fields ? { fields: { ...fields } } : {}) }),
    },
  };
  return { deps, logs, ttls };
}

/** The same dependencies with the world's compute fencer changed by `change`. */
function withFencer(world: CrashWorld, deps: FencerDeps, change: Partial<ComputeFencer>): FencerDeps {
  const fencer = world.deps().compute.forProviderId(world.node.providerId ?? '') as ComputeFencer;
  const changed: ComputeFencer = { ...fencer, ...change };
  return { ...deps, compute: { forProviderId: () => changed } };
}

const apiError = (message: string) => Object.assign(new Error(message), { name: 'KubernetesApiError' });

describe('the in-process fence loop', () => {
  it('steps until fenced, handing out each step and the state after it, with the in-process claim TTL', async () => {
    const world = new CrashWorld();
    const { deps, ttls } = depsOf(world);
    const steps: StepDecision[] = [];
    const states: FenceStepState[] = [];

    const report = await runFence(deps, request, {
      timeoutSeconds: 60,
      runId: RUN,
      onStep: (s) => steps.push(s),
      onState: async (s) => void states.push(s),
    });

    expect(report.outcome).toBe('fenced');
    expect(world.powerOffRequests).toBe(1);
    expect(steps.length).toBeGreaterThan(1);
    expect(steps.at(-1)).toMatchObject({ outcome: 'fenced', done: true });
    expect(states.map((s) => s.decision)).toEqual(steps);
    expect(states.every((s) => s.history.runId === RUN)).toBe(true);
    expect(new Set(ttls)).toEqual(new Set([ClaimTtlSeconds.InProcess]));
    // A run that ends fenced gives its claim back itself.
    expect(world.claims).toEqual([]);
  });

  it('retries a step that failed with a retryable error from the same state, and says so', async () => {
    const world = new CrashWorld();
    let failures = 1;
    const base = world.deps();
    const { deps, logs } = depsOf(world, {
      listFencingClaims: async (ttl) => {
        if (failures-- > 0) throw apiError('etcd leader changed');
        return base.cluster.listFencingClaims(ttl);
      },
    });
    const retried: Error[] = [];

    const report = await runFence(deps, request, {
      timeoutSeconds: 60,
      runId: RUN,
      onRetry: (e) => retried.push(e),
    });

    expect(report.outcome).toBe('fenced');
    expect(retried.map((e) => e.message)).toEqual(['etcd leader changed']);
    expect(logs).toContainEqual({
      level: 'warn',
      message: 'step failed; retrying from the same state',
      fields: { node: 'node-a', error: 'KubernetesApiError', message: 'etcd leader changed' },
    });
    expect(world.powerOffRequests).toBe(1);
  });

  it('ends on any other error, rethrowing it and giving its claim back', async () => {
    const world = new CrashWorld();
    const base = world.deps();
    const { deps } = depsOf(world, {
      // The run has claimed the node and asked for the power-off; then the world breaks for good.
      listPodsOnNode: async (node) => {
        if (world.powerOffRequests > 0) throw new TypeError('a bug');
        return base.cluster.listPodsOnNode(node);
      },
    });

    await expect(runFence(deps, request, { timeoutSeconds: 60, runId: RUN })).rejects.toThrow(TypeError);
    expect(world.powerOffRequests).toBe(1);
    expect(world.claims).toEqual([]);
    expect(world.writes.at(-1)).toBe('releaseFencing');
  });

  it.each([401, 403])(
    'ends at once when the API server refuses its identity (HTTP %i): no retry until the deadline',
    async (statusCode) => {
      const world = new CrashWorld();
      const base = world.deps();
      const forbidden = Object.assign(apiError('volumeattachments is forbidden'), { statusCode });
      const { deps } = depsOf(world, {
        listPodsOnNode: async (node) => {
          if (world.powerOffRequests > 0) throw forbidden;
          return base.cluster.listPodsOnNode(node);
        },
      });
      const retried: Error[] = [];

      await expect(
        runFence(deps, request, { timeoutSeconds: 60, runId: RUN, onRetry: (e) => retried.push(e) }),
      ).rejects.toBe(forbidden);
      expect(retried).toEqual([]);
      expect(world.claims).toEqual([]);
    },
  );

  it('gives up at its timeout: a failed run, its claim given back, the timeout audited', async () => {
    const world = new CrashWorld();
    // Another run holds the node: each step waits 5 s for it, longer than this run may take.
    const { deps, logs } = depsOf(world, {
      claimFencing: async () => ({ granted: false, reason: 'claimed-by-other', holder: 'run-9' }),
      waitForNodeChange: (_, ms) => new Promise((resolve) => setTimeout(() => resolve('timeout'), ms)),
    });
    const report = await runFence(deps, request, { timeoutSeconds: 0.2, runId: RUN });

    expect(report.outcome).toBe('failed');
    expect(world.powerOffRequests).toBe(0);
    const timeout = logs.find((l) => l.level === 'error');
    expect(timeout?.message).toMatch(
      /^Timeout: gave up after 0\.2 s in phase Assess; last: AlreadyInProgress: /,
    );
    expect(world.writes).toEqual(['releaseFencing']);
  });

  it('stops at once when aborted, as a run that did not finish', async () => {
    const world = new CrashWorld();
    const { deps } = depsOf(world);
    const aborted = AbortSignal.abort();
    const report = await runFence(deps, request, { timeoutSeconds: 60, runId: RUN, signal: aborted });
    expect(report.outcome).toBe('failed');
    expect(world.powerOffRequests).toBe(0);
  });

  it('hands the run over when aborted with handOverOnAbort: its claim kept, no timeout audited, mid-wait or mid-step', async () => {
    for (const where of ['wait', 'step'] as const) {
      const world = new CrashWorld();
      const stop = new AbortController();
      const events: NodeEvent[] = [];
      const { deps, logs } = depsOf(world, {
        // The runner stops leading while the run waits for the machine to go off, or as it is about to act.
        waitForNodeChange: async (_node, _ms, signal) => {
          stop.abort(new Error('leadership lost'));
          throw signal?.reason;
        },
        recordNodeEvent: async (_node, event) => {
          events.push(event);
        },
      });
      const report = await runFence(deps, request, {
        timeoutSeconds: 60,
        runId: RUN,
        signal: stop.signal,
        handOverOnAbort: true,
        ...(where === 'step'
          ? {
              beforeAction: async () => {
                stop.abort(new Error('leadership not confirmed'));
                throw new Error('this replica no longer leads');
              },
            }
          : {}),
      });
      expect(report.reason, where).toBe('Timeout');
      expect(world.writes, where).not.toContain('releaseFencing');
      expect(
        events.map((e) => e.reason),
        where,
      ).not.toContain('FencingTimedOut');
      // Mid-step, the step's own audit names why it stopped (a StepError naming the guard), as for any throw.
      const errors = logs.filter((l) => l.level === 'error').map((l) => JSON.stringify(l));
      if (where === 'wait') expect(errors).toEqual([]);
      else expect(errors.length > 0 && errors.every((e) => e.includes('no longer leads'))).toBe(true);
      expect(
        logs.map((l) => l.message),
        where,
      ).toContain('run handed over: this runner stopped; its claim and checkpoint stay for the next');
      // Mid-step, the guard stopped the power-off before it was asked for.
      expect(world.powerOffRequests, where).toBe(where === 'step' ? 0 : 1);
    }
  });

  it('keeps going when recording its state fails for a retryable reason, and ends on any other', async () => {
    const world = new CrashWorld();
    const { deps, logs } = depsOf(world);
    let failures = 1;
    const report = await runFence(deps, request, {
      timeoutSeconds: 60,
      runId: RUN,
      onState: async () => {
        if (failures-- > 0) throw apiError('the checkpoint write timed out');
      },
    });
    expect(report.outcome).toBe('fenced');
    expect(logs).toContainEqual({
      level: 'warn',
      message: 'could not record the run’s state; recording it after the next step',
      fields: { node: 'node-a', error: 'KubernetesApiError', message: 'the checkpoint write timed out' },
    });

    const other = new CrashWorld();
    await expect(
      runFence(depsOf(other).deps, request, {
        timeoutSeconds: 60,
        runId: RUN,
        onState: async () => {
          throw new RangeError('disk full');
        },
      }),
    ).rejects.toThrow(RangeError);
    expect(other.claims).toEqual([]);
  });

  it('resumes only its own run’s history', async () => {
    const world = new CrashWorld();
    const { deps } = depsOf(world);
    const theirs = startRun('another-run', '2026-03-01T11:59:00.000Z');
    await expect(
      runFence(deps, request, {
        timeoutSeconds: 60,
        runId: RUN,
        resume: { history: theirs, decision: null },
      }),
    ).rejects.toThrow(`cannot resume run ${RUN} from the history of run another-run`);
    await expect(
      runFence(deps, request, { timeoutSeconds: 60, resume: { history: theirs, decision: null } }),
    ).rejects.toThrow('cannot resume run (unnamed) from the history of run another-run');
    expect(world.writes).toEqual([]);

    const own = startRun(RUN, '2026-03-01T11:59:00.000Z');
    const report = await runFence(deps, request, {
      timeoutSeconds: 60,
      runId: RUN,
      resume: { history: own, decision: null },
    });
    expect(report.outcome).toBe('fenced');
  });

  it('writes nothing to give back in a dry run', async () => {
    const world = new CrashWorld();
    const { deps } = depsOf(world);
    await runFence(
      deps,
      { ...request, dryRun: true },
      { timeoutSeconds: 60, runId: RUN, signal: AbortSignal.abort() },
    );
    expect(world.writes).toEqual([]);

    const real = new CrashWorld();
    await runFence(depsOf(real).deps, request, {
      timeoutSeconds: 60,
      runId: RUN,
      signal: AbortSignal.abort(),
    });
    expect(real.writes).toEqual(['releaseFencing']);
  });
});

describe('what a fenced run reports beyond the fence', () => {
  const va = (name: string, nodeName: string, pv?: string, attachError?: string): VolumeAttachmentView => ({
    name,
    uid: `uid-${name}`,
    nodeName,
    attacher: 'ebs.csi.aws.com',
    ...(pv ? { persistentVolumeName: pv } : {}),
    attached: false,
    ...(attachError ? { attachError: { message: attachError } } : {}),
    finalizers: [],
    createdAt: '2026-03-01T12:00:00.000Z',
  });
  const pv = (name: string): PersistentVolumeView => ({
    name,
    accessModes: ['ReadWriteOnce'],
    claim: { namespace: 'db', name: `data-${name}` },
    zones: ['cn-hangzhou-h'],
    nodeBound: false,
  });

  /** node-a holds pv-1, pv-2 and an attachment of no PV when the run starts; then they are released. */
  function released(elsewhere: readonly VolumeAttachmentView[]) {
    const world = new CrashWorld();
    let asked = 0;
    const { deps } = depsOf(world, {
      listVolumeAttachments: async (filter = {}) => {
        if (filter.nodeName === 'node-a') {
          asked += 1;
          return asked === 1
            ? [va('csi-1', 'node-a', 'pv-1'), va('csi-2', 'node-a', 'pv-2'), va('csi-x', 'node-a')]
            : [];
        }
        return elsewhere;
      },
      listPersistentVolumes: async () => [pv('pv-1'), pv('pv-2'), pv('pv-9')],
    });
    return { world, deps };
  }

  it('names each volume the node held that still cannot reach its replacement, and why', async () => {
    const { deps } = released([
      va('csi-3', 'node-b', 'pv-1', 'attach limit reached on node-b'),
      va('csi-4', 'node-b', 'pv-9', 'not one of node-a’s volumes'),
    ]);
    const report = await runFence(deps, request, { timeoutSeconds: 60, runId: RUN });

    expect(report.outcome).toBe('fenced');
    expect(report.downstream).toEqual([
      'volume pv-1 cannot attach on node-b: attach limit reached on node-b',
      'volume pv-2 (claim db/data-pv-2) was not yet attached to another node when the fence finished; it can only attach in cn-hangzhou-h',
    ]);
  });

  it('reports nothing beyond a run that did not end fenced', async () => {
    const { deps } = released([va('csi-3', 'node-b', 'pv-1', 'attach limit reached on node-b')]);
    const report = await runFence(deps, request, {
      timeoutSeconds: 60,
      runId: RUN,
      signal: AbortSignal.abort(),
    });
    expect(report.outcome).toBe('failed');
    expect(report.downstream).toEqual([]);
  });
});

describe('the in-process un-fence loop', () => {
  const unfence = { node: 'node-a', cluster: 'lab', dryRun: false, waitSeconds: 600 };

  it('ends at once for a node that carries no taint of the fencer’s: nothing to remove, nothing written', async () => {
    const world = new CrashWorld();
    const { deps, logs } = depsOf(world);
    const steps: StepDecision[] = [];
    const report = await runUnfence(deps, unfence, {
      timeoutSeconds: 60,
      runId: 'unfence-1',
      onStep: (s) => steps.push(s),
    });
    expect(steps).toMatchObject([{ phase: 'Unfenced', done: true, action: null }]);
    expect(report).toMatchObject({ kind: 'unfence', runId: 'unfence-1', outcome: 'unfenced' });
    expect(world.writes).toEqual([]);
    // A run that finished is no timeout: nothing to audit as one.
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('audits a run that did not finish, and names a run it was given no id for', async () => {
    const world = new CrashWorld();
    const { deps, logs } = depsOf(world);
    const report = await runUnfence(deps, unfence, { timeoutSeconds: 60, signal: AbortSignal.abort() });
    expect(report.outcome).toBe('failed');
    expect(report.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'Timeout: gave up after 60 s before any step decided',
      }),
    );
  });
});

/**
 * The loop's own clock (Date.now: its deadline, the wait it gives each step) frozen, and moved on only
 * by the waits between steps: the deadline is then reached exactly, at a known step.
 */
describe('the in-process loop’s waits and deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const START = Date.parse('2026-03-01T12:00:00.000Z');

  /** Freezes the loop's clock; the returned cluster calls record each wait and move the clock on by it. */
  function frozenClock() {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(START);
    const waits: { node: string; ms: number }[] = [];
    const events: NodeEvent[] = [];
    const cluster: Partial<Cluster> = {
      waitForNodeChange: async (node, ms) => {
        waits.push({ node, ms });
        vi.setSystemTime(Date.now() + ms);
        return 'timeout';
      },
      recordNodeEvent: async (_, event) => void events.push(event),
    };
    return { waits, events, cluster };
  }

  it('waits for the node between steps as long as each decision asks, and not at all after one that asks to go on at once', async () => {
    const world = new CrashWorld();
    const clock = frozenClock();
    const steps: StepDecision[] = [];
    const { deps, logs } = depsOf(world, clock.cluster);
    const report = await runFence(deps, request, {
      timeoutSeconds: 60,
      runId: RUN,
      onStep: (s) => steps.push(s),
    });

    expect(report).toMatchObject({ kind: 'fence', outcome: 'fenced' });
    // Finished in time: no timeout audited, and its claim given back once, by the step that ended it.
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(world.writes.filter((w) => w === 'releaseFencing')).toHaveLength(1);
    // The run passes through both kinds of step: a rule that asks for a wait (twice in a row, as
    // confirm-off does while the machine stops) and one that asks to go on at once (add-taint).
    expect(steps.some((s) => !s.done && s.waitSeconds === 0)).toBe(true);
    const waiting = steps.filter((s) => !s.done && s.waitSeconds > 0);
    expect(waiting.some((s, i) => waiting[i + 1]?.rule === s.rule)).toBe(true);
    expect(clock.waits).toEqual(waiting.map((s) => ({ node: 'node-a', ms: s.waitSeconds * 1000 })));
  });

  it('paces a rule that asks to go on at once twice in a row: one second before its third try', async () => {
    const world = new CrashWorld();
    const clock = frozenClock();
    const base = world.deps();
    let lost = 1;
    // The first taint is lost on the way (the API server answered, the Node does not show it): the
    // next step decides add-taint again, at once.
    const { deps } = depsOf(world, {
      ...clock.cluster,
      addTaint: async (...args) => (lost-- > 0 ? 'added' : base.cluster.addTaint(...args)),
    });
    const steps: StepDecision[] = [];
    const report = await runFence(deps, request, {
      timeoutSeconds: 60,
      runId: RUN,
      onStep: (s) => steps.push({ ...s }),
    });

    expect(report.outcome).toBe('fenced');
    const taints = steps.flatMap((s, i) => (s.rule === 'add-taint' ? [i] : []));
    expect(taints).toHaveLength(2);
    expect(taints[1]).toBe((taints[0] ?? 0) + 1);
    expect(steps.filter((s) => s.rule === 'add-taint').every((s) => s.waitSeconds === 0)).toBe(true);
    // Only the repeat is paced: the waits before the first add-taint, then one second.
    const before = steps.slice(0, taints[0]).filter((s) => s.waitSeconds > 0);
    expect(clock.waits.map((w) => w.ms)).toEqual([...before.map((s) => s.waitSeconds * 1000), 1000]);
  });

  it('cuts the last wait at its deadline and takes no step at the deadline itself', async () => {
    const world = new CrashWorld();
    const clock = frozenClock();
    const { deps, logs } = depsOf(world, clock.cluster);
    const steps: StepDecision[] = [];
    const report = await runFence(deps, request, {
      timeoutSeconds: 3,
      runId: RUN,
      onStep: (s) => steps.push(s),
    });

    // Both of its steps ask for 2 s: the second wait gets the 1 s left, and the run ends there.
    expect(steps.map((s) => s.waitSeconds)).toEqual([2, 2]);
    expect(clock.waits.map((w) => w.ms)).toEqual([2000, 1000]);
    expect(Date.now()).toBe(START + 3000);
    expect(report.outcome).toBe('failed');
    expect(logs.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      expect.stringMatching(/^Timeout: gave up after 3 s in phase ConfirmOff/),
    ]);
  });

  it('with no time at all takes no step, and leaves the timeout on the node unless it is a dry run', async () => {
    const world = new CrashWorld();
    const clock = frozenClock();
    const { deps, logs } = depsOf(world, clock.cluster);
    const report = await runFence(deps, request, { timeoutSeconds: 0, runId: RUN });

    expect(report.outcome).toBe('failed');
    expect(world.powerOffRequests).toBe(0);
    expect(logs.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      'Timeout: gave up after 0 s before any step decided',
    ]);
    expect(clock.events).toEqual([
      {
        type: 'Warning',
        reason: 'FencingTimedOut',
        message: 'Timeout: gave up after 0 s before any step decided',
        action: 'Observe',
      },
    ]);

    const dry = new CrashWorld();
    const quiet = frozenClock();
    const dryReport = await runFence(
      depsOf(dry, quiet.cluster).deps,
      { ...request, dryRun: true },
      {
        timeoutSeconds: 0,
        runId: RUN,
      },
    );
    expect(dryReport.outcome).toBe('failed');
    expect(quiet.events).toEqual([]);
    expect(dry.writes).toEqual([]);
  });

  it('names the error that kept its last step from deciding when it times out retrying, with or without a retry callback', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout'] });
    vi.setSystemTime(START);
    const world = new CrashWorld();
    const { deps, logs } = depsOf(world, {
      listFencingClaims: async () => {
        throw apiError('etcd leader changed');
      },
    });
    let settled = false;
    const run = runFence(deps, request, { timeoutSeconds: 1, runId: RUN }).finally(() => {
      settled = true;
    });
    // The retry waits 2 s, past the run's 1 s: one try, then the deadline.
    for (let i = 0; i < 100 && !settled; i++) await vi.advanceTimersByTimeAsync(100);
    const report = await run;

    expect(report.outcome).toBe('failed');
    expect(logs.filter((l) => l.message === 'step failed; retrying from the same state')).toHaveLength(1);
    expect(logs.filter((l) => l.level === 'error').map((l) => l.message)).toContain(
      'Timeout: gave up after 1 s before any step decided; the last step failed: KubernetesApiError: etcd leader changed',
    );
  });

  it('refuses to resume its own run from a history that contradicts itself, before writing anything', async () => {
    const world = new CrashWorld();
    const { deps } = depsOf(world);
    // Tainted, yet with no proof that anything was fenced.
    const broken = { ...startRun(RUN, '2026-03-01T11:59:00.000Z'), taintedAt: '2026-03-01T11:59:30.000Z' };
    await expect(
      runFence(deps, request, {
        timeoutSeconds: 60,
        runId: RUN,
        resume: { history: broken, decision: null },
      }),
    ).rejects.toThrow('inconsistent run history: taintedAt without any proof');
    expect(world.writes).toEqual([]);
  });

  it('gives a step’s provider reads no more than the run has left', async () => {
    const world = new CrashWorld();
    // A provider that never answers: only the step's own budget ends the read.
    const hanging: Partial<ComputeFencer> = {
      inspect: (_ref, _cluster, options) =>
        new Promise((_, reject) =>
          options?.signal?.addEventListener('abort', () => reject(options.signal?.reason)),
        ),
    };
    const { deps } = depsOf(world);
    const started = performance.now();
    const report = await runFence(withFencer(world, deps, hanging), request, {
      timeoutSeconds: 2,
      runId: RUN,
    });
    const tookMs = performance.now() - started;

    expect(report.outcome).toBe('failed');
    expect(world.powerOffRequests).toBe(0);
    // The least a step is given (2 s) is what this run had; a step's whole budget would be 20 s.
    expect(tookMs).toBeGreaterThanOrEqual(1900);
    expect(tookMs).toBeLessThan(10_000);
  }, 15_000);
});

describe('what a run reads for its report beyond the fence', () => {
  const attachment = (name: string, pv?: string): VolumeAttachmentView => ({
    name,
    uid: `uid-${name}`,
    nodeName: 'node-a',
    attacher: 'ebs.csi.aws.com',
    ...(pv ? { persistentVolumeName: pv } : {}),
    attached: true,
    finalizers: [],
    createdAt: '2026-03-01T12:00:00.000Z',
  });

  /** A world whose node-a holds `held` when asked first; every cluster-wide volume read is counted. */
  function holding(held: readonly VolumeAttachmentView[]) {
    const world = new CrashWorld();
    const wide: string[] = [];
    let asked = 0;
    const { deps } = depsOf(world, {
      listVolumeAttachments: async (filter = {}) => {
        if (filter.nodeName === 'node-a') return asked++ === 0 ? [...held] : [];
        wide.push('listVolumeAttachments');
        return [];
      },
      listPersistentVolumes: async () => {
        wide.push('listPersistentVolumes');
        return [];
      },
    });
    return { world, deps, wide };
  }

  it('reads nothing more for a node that held no persistent volume (an attachment of none does not count)', async () => {
    const { deps, wide } = holding([attachment('csi-x')]);
    const report = await runFence(deps, request, { timeoutSeconds: 60, runId: RUN });
    expect(report.outcome).toBe('fenced');
    expect(report.downstream).toEqual([]);
    expect(wide).toEqual([]);
  });

  it('looks for what still blocks the node’s volumes once it ends fenced, and not after a dry run', async () => {
    const fenced = holding([attachment('csi-1', 'pv-1')]);
    expect((await runFence(fenced.deps, request, { timeoutSeconds: 60, runId: RUN })).outcome).toBe('fenced');
    expect(fenced.wide.sort()).toEqual(['listPersistentVolumes', 'listVolumeAttachments']);

    const dry = holding([attachment('csi-1', 'pv-1')]);
    const dryDeps = withFencer(dry.world, dry.deps, {
      powerOff: async (_, options) => {
        expect(options.dryRun).toBe(true);
        return { kind: 'dry-run', action: 'stop', wouldSucceed: true, detail: 'DryRunOperation' };
      },
    });
    const report = await runFence(dryDeps, { ...request, dryRun: true }, { timeoutSeconds: 60, runId: RUN });
    expect(report.outcome).toBe('dry-run');
    expect(report.downstream).toEqual([]);
    expect(dry.wide).toEqual([]);
  });
});

describe('the in-process un-fence loop’s waits and timeout', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits for the node between its steps and, timed out, names where it stood and why', async () => {
    const world = new CrashWorld();
    // Fenced first: the node carries the fencer's taint and its machine is off, so the un-fence waits.
    expect((await runFence(depsOf(world).deps, request, { timeoutSeconds: 60, runId: RUN })).outcome).toBe(
      'fenced',
    );
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-03-01T13:00:00.000Z'));
    const waits: { node: string; ms: number }[] = [];
    const { deps, logs } = depsOf(world, {
      waitForNodeChange: async (node, ms) => {
        waits.push({ node, ms });
        vi.setSystemTime(Date.now() + ms);
        return 'timeout';
      },
    });
    const steps: StepDecision[] = [];
    const report = await runUnfence(
      deps,
      { node: 'node-a', cluster: 'lab', dryRun: false, waitSeconds: 600 },
      { timeoutSeconds: 15, runId: 'unfence-2', onStep: (s) => steps.push(s) },
    );

    // One step, which asks for 15 s: all the run has.
    expect(report.outcome).toBe('failed');
    expect(steps).toHaveLength(1);
    const last = steps.at(-1);
    expect(last?.waitSeconds).toBe(15);
    expect(last).toMatchObject({ done: false, reason: 'NodeNotReadyYet' });
    expect(waits).toEqual(steps.map((s) => ({ node: 'node-a', ms: s.waitSeconds * 1000 })));
    expect(logs.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      `Timeout: gave up after 15 s in phase ${last?.phase}; last: NodeNotReadyYet: ${last?.message}`,
    ]);
  });
});
