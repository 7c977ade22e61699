import { type ActingContext, decideActing } from '../../domain/acting.js';
import { type Action, ActionKind } from '../../domain/action.js';
import { decide } from '../../domain/decide.js';
import type { Decision } from '../../domain/decision.js';
import type { RunHistory } from '../../domain/history.js';
import type { Observation } from '../../domain/observation.js';
import type { FenceRequest } from '../../domain/request.js';
import { CLAIM_TTL_SECONDS, ClaimTtlSeconds } from '../../domain/timing.js';
import type { FencerDeps } from '../shared/deps.js';
import { perform } from './act.js';
import { type AuditScope, audit, auditError } from './audit.js';
import { type Observed, observe, stepProviderBudgetMs, withFreshNode } from './observe.js';
import { type StepDecision, stepDecision } from './outcome.js';

/** The state a fence run carries from step to step (in Step Functions, the execution's JSON). */
export interface FenceStepState {
  readonly request: FenceRequest;
  readonly history: RunHistory;
  /** The last step's decision; `null` before the first step. */
  readonly decision: StepDecision | null;
}

export { CLAIM_TTL_SECONDS };

/** How a runner takes its steps. */
export interface FenceStepOptions {
  /**
   * How long this run's claim lives without renewal: the runner's longest gap between two steps.
   * @default ClaimTtlSeconds.Workflow
   */
  readonly claimTtlSeconds?: number;
  /**
   * Called right before a real power-off with the state the step is about to act on: its history
   * already records the decision to fence and the power-off request. A runner that keeps
   * the run's state outside the process (lib/app/fence/run-checkpoint.ts) records it here, so that a crash
   * between the action and the end of the step cannot make the next attempt start the run over.
   */
  readonly beforeAction?: (state: FenceStepState) => Promise<void>;
  /** How long the run has left: the step's provider reads get no more (see stepProviderBudgetMs). */
  readonly remainingMs?: number;
}

/**
 * A run that may not hold the claim does not act: the acting table (lib/domain/acting.ts) decides
 * whether it is refused (the in-flight limit before it committed) or waits with its history kept.
 */
async function claimDenied(
  deps: FencerDeps,
  state: FenceStepState,
  acting: ActingContext,
  started: number,
): Promise<FenceStepState> {
  const { request } = state;
  const denied = decideActing(acting);
  const next = stepDecision(acting.observation.observedAt, denied, null, started);
  await audit(deps, scopeOf(request, acting.observation), state.decision, next);
  return { request, history: denied.history, decision: next };
}

/** A dry run writes nothing, and a node that does not exist gets no Event (SAFETY.md rules 8 and 10). */
const scopeOf = (request: FenceRequest, observation: Observation): AuditScope => ({
  node: request.node,
  writeEvents: !request.dryRun && observation.node !== null,
});

/** Actions that touch the machine or the node, for which the node is read again just before. */
const touchesNodeOrMachine = (action: Action | null): boolean =>
  action !== null && !(action.kind === ActionKind.PowerOff && action.dryRun);

/**
 * Decides on the step's observation, and again on a fresh read of the node right before any real
 * action: a node whose Lease was renewed while the provider was being asked is seen, and the step
 * decides on what it saw last (SAFETY.md rule 2: re-check right before acting).
 */
async function decideWithRecheck(
  deps: FencerDeps,
  observed: Observed,
  request: FenceRequest,
  history: RunHistory,
): Promise<{ readonly observed: Observed; readonly decision: Decision }> {
  const first = decide(observed.observation, request, history);
  if (!touchesNodeOrMachine(first.action)) return { observed, decision: first };
  const fresh = await withFreshNode(deps, observed, request.node);
  return { observed: fresh, decision: decide(fresh.observation, request, history) };
}

/**
 * One reconcile step of a fence run: observe afresh, decide (every safety rule lives in decide()),
 * re-read the node and decide again right before acting, take the claim that keeps the in-flight
 * limit under concurrency, perform at most one action, audit, and return the next state. A thrown
 * error is audited (log, metric, Event) and leaves the state as it was: retrying the step from the
 * same state is always safe.
 */
export async function fenceStep(
  deps: FencerDeps,
  state: FenceStepState,
  options: FenceStepOptions = {},
): Promise<FenceStepState> {
  try {
    return await takeStep(
      deps,
      state,
      options.claimTtlSeconds ?? ClaimTtlSeconds.Workflow,
      options.beforeAction,
      stepProviderBudgetMs(options.remainingMs),
    );
  } catch (error) {
    await auditError(deps, state.request.node, !state.request.dryRun, error);
    throw error;
  }
}

async function takeStep(
  deps: FencerDeps,
  state: FenceStepState,
  claimTtlSeconds: number,
  beforeAction: FenceStepOptions['beforeAction'],
  providerBudgetMs: number,
): Promise<FenceStepState> {
  const started = Date.now();
  const { request, history } = state;
  const initial = await observe(deps, request.node, request.cluster, {
    claimTtlSeconds: CLAIM_TTL_SECONDS,
    withDisks: history.proofOfOff !== null,
    withStorage: history.isolation?.storage === true,
    ...(history.witnessed ? { witnessed: history.witnessed } : {}),
    providerBudgetMs,
  });
  const { observed, decision } = await decideWithRecheck(deps, initial, request, history);
  const { observation, fencer } = observed;

  // The claim makes the in-flight limit atomic across concurrent runs: decide() saw the claims as
  // they were; the claim is granted only if they still allow it.
  const holdsOrTakesClaim = !request.dryRun && decision.history.decidedToFenceAt !== null;
  if (holdsOrTakesClaim && !decision.done) {
    const claim = await deps.cluster.claimFencing(request.node, history.runId, {
      ttlSeconds: claimTtlSeconds,
    });
    if (!claim.granted) {
      return claimDenied(deps, state, { decision, history, observation, claim, refused: null }, started);
    }
  }

  const power =
    observation.instance?.resolved && observation.instance.power.ok ? observation.instance.power.value : null;
  // Only before a power-off: the one action a fresh start could repeat on a machine started again
  // since. A write to the Node here would also void a Node write made on the node as observed.
  if (beforeAction && decision.action?.kind === ActionKind.PowerOff && !decision.action.dryRun) {
    await beforeAction({ request, history: decision.history, decision: state.decision });
  }
  const result = decision.action ? await perform(deps, decision.action, fencer, power) : null;
  // The provider's answer may still end the run: the acting table says how.
  const final = decideActing({
    decision,
    history,
    observation,
    claim: null,
    refused: result?.blocked ?? null,
  });
  if (final.done && holdsOrTakesClaim) await deps.cluster.releaseFencing(request.node, history.runId);

  const next = stepDecision(observation.observedAt, final, result?.summary ?? null, started);
  await audit(deps, scopeOf(request, observation), state.decision, next);
  return { request, history: final.history, decision: next };
}
