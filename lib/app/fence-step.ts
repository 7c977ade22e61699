import { decide } from '../domain/decide.js';
import { type RunHistory, record } from '../domain/history.js';
import type { Observation } from '../domain/observation.js';
import { Phase } from '../domain/phases.js';
import { describeReason, Reason } from '../domain/reasons.js';
import type { FenceRequest } from '../domain/request.js';
import type { ClaimResult } from '../ports/cluster.js';
import { perform } from './act.js';
import { audit } from './audit.js';
import type { FencerDeps } from './deps.js';
import { observe } from './observe.js';
import { RunOutcome, type StepDecision, stepDecision } from './outcome.js';

/** The state a fence run carries from step to step (in Step Functions, the execution's JSON). */
export interface FenceStepState {
  readonly request: FenceRequest;
  readonly history: RunHistory;
  /** The last step's decision; `null` before the first step. */
  readonly decision: StepDecision | null;
}

/**
 * How long a claim on a node lives without renewal. Every step renews it, and no step waits longer
 * than 30 s, so only a run that died loses its claim.
 */
export const CLAIM_TTL_SECONDS = 90;

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
  await audit(deps, request.node, state.decision, next);
  return { request, history: nextHistory, decision: next };
}

/**
 * One reconcile step of a fence run: observe afresh, decide (every safety rule lives in decide()),
 * take the claim that keeps the in-flight limit under concurrency, perform at most one action,
 * audit, and return the next state. A thrown error leaves the state as it was: retrying the step
 * from the same state is always safe.
 */
export async function fenceStep(deps: FencerDeps, state: FenceStepState): Promise<FenceStepState> {
  const started = Date.now();
  const { request, history } = state;
  const { observation, fencer } = await observe(deps, request.node, request.cluster, CLAIM_TTL_SECONDS);
  const decision = decide(observation, request, history);

  // The claim makes the in-flight limit atomic across concurrent runs: decide() saw the claims as
  // they were; the claim is granted only if they still allow it.
  const holdsOrTakesClaim = !request.dryRun && decision.history.decidedToFenceAt !== null;
  if (holdsOrTakesClaim && !decision.done) {
    const claim = await deps.cluster.claimFencing(request.node, history.runId, {
      maxInFlight: request.limits.maxInFlight,
      ttlSeconds: CLAIM_TTL_SECONDS,
    });
    if (!claim.granted) return claimDenied(deps, state, observation, claim, decision.evidence, started);
  }

  const actionResult = decision.action ? await perform(deps, decision.action, fencer) : null;
  if (decision.done && holdsOrTakesClaim) await deps.cluster.releaseFencing(request.node, history.runId);

  const next = stepDecision(observation.observedAt, decision, actionResult, started);
  await audit(deps, request.node, state.decision, next);
  return { request, history: decision.history, decision: next };
}
