/**
 * The in-process fence loop (the CLI's, lib/app/fence/run-loop.ts) on the in-memory world of the crash
 * tests: steps until the run ends, progress and state handed out after each step, a retryable error
 * retried from the same state, any other error (or a timeout, or an abort) ending the run with its
 * claim given back and the timeout audited, and a resumed history accepted only from its own run.
 * The CLI runs the same loop against the lab in test/e2e/fence.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { FenceStepState } from '../../../../lib/app/fence/fence-step.js';
import type { StepDecision } from '../../../../lib/app/fence/outcome.js';
import { runFence, runUnfence } from '../../../../lib/app/fence/run-loop.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { startRun } from '../../../../lib/domain/history.js';
import { ClaimTtlSeconds } from '../../../../lib/domain/timing.js';
import type { Cluster, PersistentVolumeView, VolumeAttachmentView } from '../../../../lib/ports/cluster.js';
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
    const steps: StepDecision[] = [];
    const report = await runUnfence(depsOf(world).deps, unfence, {
      timeoutSeconds: 60,
      runId: 'unfence-1',
      onStep: (s) => steps.push(s),
    });
    expect(steps).toMatchObject([{ phase: 'Unfenced', done: true, action: null }]);
    expect(report).toMatchObject({ kind: 'unfence', runId: 'unfence-1', outcome: 'unfenced' });
    expect(world.writes).toEqual([]);
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
