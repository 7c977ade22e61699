import { randomUUID } from 'node:crypto';
import { isRetryableError, ValidationError } from '../../domain/errors.js';
import { assertHistory, type RunHistory, startRun } from '../../domain/history.js';
import type { FenceRequest, UnfenceRequest } from '../../domain/request.js';
import { ClaimTtlSeconds } from '../../domain/timing.js';
import type { FencerDeps } from '../shared/deps.js';
import { type UnfenceStepState, unfenceStep } from '../unfence/unfence-step.js';
import { auditTimeout, type TimeoutScope } from './audit.js';
import { downstreamBlockers } from './downstream.js';
import { type FenceStepState, fenceStep } from './fence-step.js';
import type { StepDecision } from './outcome.js';
import { buildReport, type RunReport } from './report.js';
import { waitBetweenFenceSteps } from './wait-for-off.js';

export interface RunOptions {
  /** Give up (outcome `failed`, reason `Timeout`) after this many seconds. */
  readonly timeoutSeconds: number;
  /** Called after every step, for progress output. */
  readonly onStep?: (step: StepDecision) => void;
  /** Called when a step failed with a retryable error and will be retried. */
  readonly onRetry?: (error: Error) => void;
  readonly signal?: AbortSignal;
  readonly runId?: string;
  /**
   * Fence runs only: continue a run from the state an earlier attempt of it recorded (a runner that
   * keeps no state of its own between attempts, such as an asynchronous Function Compute invocation).
   * Its history must be this run's (`runId`).
   */
  readonly resume?: Pick<FenceStepState, 'history' | 'decision'>;
  /** Fence runs only: called with the state after every step, before the wait (to record it). */
  readonly onState?: (state: FenceStepState) => Promise<void>;
  /** Fence runs only: called right before each real power-off with the state it commits to (lib/app/fence/fence-step.ts). */
  readonly beforeAction?: (state: FenceStepState) => Promise<void>;
  /**
   * Fence runs only: when `signal` aborts, the run is handed over to another runner (a controller that
   * stopped leading), not ended: it keeps its claim and its checkpoint and records no timeout, so the
   * next leader continues it under the same run id. @default false: an abort ends the run like a timeout
   */
  readonly handOverOnAbort?: boolean;
}

const RETRY_AFTER_ERROR_MS = 2000;
const MIN_REPEAT_WAIT_SECONDS = 1;

const timeoutScope = (request: FenceRequest | UnfenceRequest, options: RunOptions): TimeoutScope => ({
  node: request.node,
  mayWrite: !request.dryRun,
  timeoutSeconds: options.timeoutSeconds,
});

interface LoopState {
  readonly history: RunHistory;
  readonly decision: StepDecision | null;
}

/**
 * The in-process reconcile loop (the CLI's; Step Functions runs the same steps with Wait states).
 * Between steps it waits as long as the decision says, waking early on a watch event for the node.
 * A retryable error (Kubernetes, provider, conflict) retries the same step from the same state; the API
 * server's refusal of the fencer's identity (401, 403) does not (isRetryableError).
 */
async function loop<S extends LoopState>(
  deps: FencerDeps,
  node: string,
  initial: S,
  step: (deps: FencerDeps, state: S, options: { readonly remainingMs: number }) => Promise<S>,
  options: RunOptions,
  waitBetween: (state: S, waitMs: number, signal?: AbortSignal) => Promise<unknown> = (_, waitMs, signal) =>
    deps.cluster.waitForNodeChange(node, waitMs, signal),
): Promise<{ state: S; steps: StepDecision[]; timedOut: boolean; lastError?: Error }> {
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  const steps: StepDecision[] = [];
  let state = initial;
  let lastError: Error | undefined;
  while (Date.now() < deadline && !options.signal?.aborted) {
    try {
      state = await step(deps, state, { remainingMs: deadline - Date.now() });
    } catch (err) {
      const error = err as Error;
      // A step stopped by a hand-over (its runner no longer leads) ends the loop; the next runner continues.
      if (options.handOverOnAbort && options.signal?.aborted) break;
      if (!isRetryableError(error)) throw error;
      lastError = error;
      options.onRetry?.(error);
      deps.log.warn('step failed; retrying from the same state', {
        node,
        error: error.name,
        message: error.message,
      });
      await new Promise((r) => setTimeout(r, RETRY_AFTER_ERROR_MS));
      continue;
    }
    const decision = state.decision;
    if (!decision) break;
    lastError = undefined;
    steps.push(decision);
    options.onStep?.(decision);
    if (decision.done) return { state, steps, timedOut: false };
    // A rule that decides "again, at once" twice in a row is not making progress: pace it.
    const repeated = decision.waitSeconds === 0 && steps.at(-2)?.rule === decision.rule;
    const waitSeconds = repeated ? MIN_REPEAT_WAIT_SECONDS : decision.waitSeconds;
    const waitMs = Math.min(waitSeconds * 1000, Math.max(0, deadline - Date.now()));
    if (waitMs > 0) {
      try {
        await waitBetween(state, waitMs, options.signal);
      } catch (error) {
        // A wait cut short by a hand-over ends the loop; otherwise the abort (or the watch's error) is the caller's.
        if (options.handOverOnAbort && options.signal?.aborted) break;
        throw error;
      }
    }
  }
  return { state, steps, timedOut: true, ...(lastError ? { lastError } : {}) };
}

/** A resumed history must be consistent and this run's own: another run's proof is no proof (SAFETY.md rule 1). */
function assertResumable(history: RunHistory, runId: string | undefined): void {
  assertHistory(history);
  if (history.runId !== runId) {
    throw new ValidationError(
      `cannot resume run ${runId ?? '(unnamed)'} from the history of run ${history.runId}`,
    );
  }
}

/** The volumes the node holds now, to look for what still blocks them once the fence is done. */
async function heldVolumes(deps: FencerDeps, node: string): Promise<string[]> {
  return (await deps.cluster.listVolumeAttachments({ nodeName: node }))
    .map((va) => va.persistentVolumeName)
    .filter((pv): pv is string => pv !== undefined);
}

/** A fence step of this process, whose state is then handed to `options.onState` to be recorded. */
const recordedFenceStep =
  (request: FenceRequest, options: RunOptions) =>
  async (
    d: FencerDeps,
    s: FenceStepState,
    { remainingMs }: { readonly remainingMs: number },
  ): Promise<FenceStepState> => {
    // This process renews its claim every step, so a short TTL frees the slot soon if it is killed.
    const next = await fenceStep(d, s, {
      claimTtlSeconds: ClaimTtlSeconds.InProcess,
      remainingMs,
      ...(options.beforeAction ? { beforeAction: options.beforeAction } : {}),
    });
    try {
      await options.onState?.(next);
    } catch (error) {
      // The step is done and its state is kept in memory: retrying it from the old state would take
      // its action again. The record catches up after the next step (it writes what changed since).
      if (!isRetryableError(error)) throw error;
      d.log.warn('could not record the run’s state; recording it after the next step', {
        node: request.node,
        error: (error as Error).name,
        message: (error as Error).message,
      });
    }
    return next;
  };

/**
 * Gives the run's claim back when it ends without finishing (timed out, or a step threw for good), even
 * one a step took just before it threw: only this run's own claim is ever dropped.
 */
async function releaseClaim(deps: FencerDeps, request: FenceRequest, runId: string): Promise<void> {
  if (!request.dryRun) await deps.cluster.releaseFencing(request.node, runId).catch(() => {});
}

/** Fences one node: runs steps until Fenced, Refused, Failed, DryRunReported, or the timeout. */
export async function runFence(
  deps: FencerDeps,
  request: FenceRequest,
  options: RunOptions,
): Promise<RunReport> {
  const history =
    options.resume?.history ?? startRun(options.runId ?? randomUUID(), deps.clock.now().toISOString());
  if (options.resume) assertResumable(options.resume.history, options.runId);
  const held = await heldVolumes(deps, request.node);
  const initial: FenceStepState = { request, history, decision: options.resume?.decision ?? null };
  let ran: Awaited<ReturnType<typeof loop<FenceStepState>>>;
  try {
    ran = await loop(
      deps,
      request.node,
      initial,
      recordedFenceStep(request, options),
      options,
      (s, ms, signal) => waitBetweenFenceSteps(deps, s, ms, signal),
    );
  } catch (error) {
    if (!(options.handOverOnAbort && options.signal?.aborted))
      await releaseClaim(deps, request, history.runId);
    throw error;
  }
  const { state, steps, timedOut } = ran;
  const handedOver = timedOut && options.handOverOnAbort === true && options.signal?.aborted === true;
  if (handedOver) {
    deps.log.info('run handed over: this runner stopped; its claim and checkpoint stay for the next', {
      node: request.node,
      runId: history.runId,
    });
  } else if (timedOut) {
    await releaseClaim(deps, request, history.runId);
    await auditTimeout(deps, timeoutScope(request, options), steps.at(-1) ?? null, ran.lastError);
  }
  const fenced = !timedOut && state.decision?.outcome === 'fenced';
  const report = buildReport({
    kind: 'fence',
    request,
    history: state.history,
    steps,
    timedOut,
    finishedAt: deps.clock.now(),
  });
  return { ...report, downstream: fenced ? await downstreamBlockers(deps, request.node, held) : [] };
}

/** Un-fences one node: runs steps until Unfenced, Refused, or the timeout. */
export async function runUnfence(
  deps: FencerDeps,
  request: UnfenceRequest,
  options: RunOptions,
): Promise<RunReport> {
  const history = startRun(options.runId ?? randomUUID(), deps.clock.now().toISOString());
  const initial: UnfenceStepState = { request, history, decision: null };
  const { state, steps, timedOut, lastError } = await loop(deps, request.node, initial, unfenceStep, options);
  if (timedOut) await auditTimeout(deps, timeoutScope(request, options), steps.at(-1) ?? null, lastError);
  return buildReport({
    kind: 'unfence',
    request,
    history: state.history,
    steps,
    timedOut,
    finishedAt: deps.clock.now(),
  });
}
