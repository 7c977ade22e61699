import { type Action, ActionKind } from '../../domain/action.js';
import { decide } from '../../domain/decide.js';
import type { Decision } from '../../domain/decision.js';
import { type RunHistory, record } from '../../domain/history.js';
import type { Observation } from '../../domain/observation.js';
import { Phase } from '../../domain/phases.js';
import { describeReason, Reason } from '../../domain/reasons.js';
import type { FenceRequest } from '../../domain/request.js';
import { CLAIM_TTL_SECONDS, ClaimTtlSeconds } from '../../domain/timing.js';
import type { ClaimResult } from '../../ports/cluster.js';
import type { FencerDeps } from '../shared/deps.js';
import { type ActionResult, perform } from './act.js';
import { type AuditScope, audit, auditError } from './audit.js';
import { type Observed, observe, stepProviderBudgetMs, withFreshNode } from './observe.js';
import { RunOutcome, type StepDecision, stepDecision } from './outcome.js';

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

const WAIT_FOR_CLAIM_SECONDS = 5;

/**
 * A run that may not hold the claim does not act. Committing while the in-flight limit is reached
 * is a refusal (rule 4). Another run fencing the same node, or a claim lost after committing, means
 * waiting: the old history is kept, so the run re-decides from a fresh observation later.
 */
async function claimDenied(
  deps: FencerDeps,
  state: FenceStepState,
  observation: Observation,
  claim: Exclude<ClaimResult, { granted: true }>,
  evidence: readonly string[],
  started: number,
): Promise<FenceStepState> {
  const { request, history } = state;
  const refuse = claim.reason === 'in-flight-limit' && history.decidedToFenceAt === null;
  const reason = claim.reason === 'claimed-by-other' ? Reason.AlreadyInProgress : Reason.TooManyInFlight;
  const detail =
    claim.reason === 'claimed-by-other' ? `run ${claim.holder}` : `in flight: ${claim.inFlight.join(', ')}`;
  const phase = refuse ? Phase.Refused : (history.steps.at(-1)?.phase ?? Phase.Assess);
  const next: StepDecision = {
    at: observation.observedAt,
    phase,
    done: refuse,
    outcome: refuse ? RunOutcome.Refused : RunOutcome.InProgress,
    reason,
    message: `${describeReason(reason)} (${detail})`,
    waitSeconds: refuse ? 0 : WAIT_FOR_CLAIM_SECONDS,
    rule: 'fencing-claim',
    action: null,
    actionResult: null,
    evidence,
    tookMs: Date.now() - started,
  };
  const nextHistory = refuse
    ? record(history, { phase, action: null, reason, rule: next.rule }, observation)
    : history;
  await audit(deps, scopeOf(request, observation), state.decision, next);
  return { request, history: nextHistory, decision: next };
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
 * The run ends here: the provider refused in a way no later step can change. Refused when this was
 * the step that would have committed (nothing happened), Failed when the run had committed before.
 */
function blockedDecision(
  decision: Decision,
  committedBefore: boolean,
  blocked: NonNullable<ActionResult['blocked']>,
): Decision {
  const phase = committedBefore ? Phase.Failed : Phase.Refused;
  return {
    ...decision,
    phase,
    done: true,
    reason: blocked.reason,
    message: `${describeReason(blocked.reason)} ${blocked.detail}`,
    waitSeconds: 0,
  };
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
    if (!claim.granted) return claimDenied(deps, state, observation, claim, decision.evidence, started);
  }

  const power =
    observation.instance?.resolved && observation.instance.power.ok ? observation.instance.power.value : null;
  // Only before a power-off: the one action a fresh start could repeat on a machine started again
  // since. A write to the Node here would also void a Node write made on the node as observed.
  if (beforeAction && decision.action?.kind === ActionKind.PowerOff && !decision.action.dryRun) {
    await beforeAction({ request, history: decision.history, decision: state.decision });
  }
  const result = decision.action ? await perform(deps, decision.action, fencer, power) : null;
  const committedBefore = history.decidedToFenceAt !== null;
  const final = result?.blocked ? blockedDecision(decision, committedBefore, result.blocked) : decision;
  if (final.done && holdsOrTakesClaim) await deps.cluster.releaseFencing(request.node, history.runId);

  const next = stepDecision(observation.observedAt, final, result?.summary ?? null, started);
  await audit(deps, scopeOf(request, observation), state.decision, next);
  const nextHistory = result?.blocked
    ? record(
        history,
        { phase: final.phase, action: final.action, reason: final.reason, rule: final.rule },
        observation,
      )
    : decision.history;
  return { request, history: nextHistory, decision: next };
}
