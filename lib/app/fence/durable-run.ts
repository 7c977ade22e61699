/**
 * A fencing run without a workflow engine: one attempt runs the in-process reconcile loop (the CLI's,
 * lib/app/fence/run-loop.ts) within its runner's time, recording its state on the Node as it goes
 * (lib/app/fence/run-checkpoint.ts). The runner retries a crashed or timed-out attempt (Function Compute's
 * asynchronous retries), and the next attempt continues from the checkpoint: the same run id (so the
 * same fencing claim), the same decision time and proof. An attempt that finds its run already ended
 * reports that end again and acts on nothing.
 */
import type { FenceRequest } from '../../domain/request.js';
import type { FencerDeps } from '../shared/deps.js';
import { buildReport, type RunReport } from './report.js';
import { CHECKPOINT_IGNORED_EVENT, type RunCheckpoints, sameRequest } from './run-checkpoint.js';
import { runFence } from './run-loop.js';

export interface DurableRunOptions {
  /** The run's name, given by the trigger that started it: the same for every attempt. */
  readonly runId: string;
  /** How long this attempt may take: shorter than its runner's own timeout, so it ends cleanly. */
  readonly timeoutSeconds: number;
  readonly signal?: AbortSignal;
  /** When `signal` aborts, hand the run over to the next runner instead of ending it (run-loop.ts). */
  readonly handOverOnAbort?: boolean;
  /**
   * Called right before each real power-off, before its checkpoint: throwing stops the step before it
   * acts (a controller replica that no longer leads leaves the power-off to the leader).
   */
  readonly beforePowerOff?: () => Promise<void>;
}

/** The run's report, and whether this attempt continued an earlier one. */
export interface DurableRunReport extends RunReport {
  /** `fresh`: no earlier attempt had committed; `resumed`: continued from a checkpoint; `replayed`: already ended. */
  readonly attempt: 'fresh' | 'resumed' | 'replayed';
}

/** A checkpoint of this run id written for another request is no memory of this run: ignored, loudly. */
async function ignoreForeign(deps: FencerDeps, request: FenceRequest, runId: string): Promise<null> {
  const message = `Ignored the run checkpoint of run ${runId}: it was written for another request. The run starts afresh from what it observes.`;
  deps.log.warn(message, { runId, node: request.node });
  await deps.cluster.recordNodeEvent(request.node, {
    type: 'Warning',
    reason: CHECKPOINT_IGNORED_EVENT,
    message,
    action: 'Ignore',
  });
  return null;
}

/** Runs (or continues) one fencing run to its end or this attempt's timeout. */
export async function runFenceDurably(
  deps: FencerDeps,
  request: FenceRequest,
  checkpoints: RunCheckpoints,
  options: DurableRunOptions,
): Promise<DurableRunReport> {
  const read = await checkpoints.read(request.node, options.runId);
  const saved =
    read && !sameRequest(read.request, request) ? await ignoreForeign(deps, request, options.runId) : read;
  if (saved?.decision?.done) {
    deps.log.info('run already ended; reporting its recorded outcome', {
      runId: options.runId,
      node: request.node,
      outcome: saved.decision.outcome,
    });
    const report = buildReport({
      kind: 'fence',
      request,
      history: saved.history,
      steps: [saved.decision],
      timedOut: false,
      finishedAt: new Date(saved.writtenAt),
    });
    return { ...report, attempt: 'replayed' };
  }
  if (saved) {
    deps.log.info('continuing the run from its checkpoint', {
      runId: options.runId,
      node: request.node,
      decidedToFenceAt: saved.history.decidedToFenceAt,
      powerOffRequestedAt: saved.history.powerOffRequestedAt,
      provenOff: saved.history.proofOfOff !== null,
    });
  }
  const report = await runFence(deps, request, {
    runId: options.runId,
    timeoutSeconds: options.timeoutSeconds,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.handOverOnAbort ? { handOverOnAbort: true } : {}),
    ...(saved ? { resume: { history: saved.history, decision: saved.decision } } : {}),
    // Before a power-off, so that a crash right after it is never a fresh start; after each step, so
    // that the proof, the taint and the end are kept.
    beforeAction: async (state) => {
      await options.beforePowerOff?.();
      await checkpoints.record(state);
    },
    onState: async (state) => {
      await checkpoints.record(state);
    },
  });
  // The run has ended (not merely this attempt's time): its memory is no longer needed on the Node.
  if (report.reason !== 'Timeout' && report.milestones.decidedToFenceAt !== null) {
    await checkpoints.clear(request.node, options.runId);
  }
  return { ...report, attempt: saved ? 'resumed' : 'fresh' };
}
