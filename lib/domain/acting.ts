/**
 * What a step decides once it tries to act. decide() chose at most one action on what the step
 * observed; two answers that come only when the step acts may still stop it: the cluster's fencing
 * claim, which keeps the in-flight limit under concurrent runs (SAFETY.md rules 4 and 7), and the
 * provider's refusal of the action itself (rule 9). The acting table is walked like the fence table;
 * its last rule keeps the decision as it was.
 */
import type { Action } from './action.js';
import { type Decision, halt, type Outcome, type Rule, wait, walk } from './decision.js';
import { type RunHistory, record } from './history.js';
import type { Observation } from './observation.js';
import { isTerminal, Phase } from './phases.js';
import { describeReason, Reason } from './reasons.js';

/** The cluster's answer to a run asking for the claim on its node. */
export type ClaimResult =
  | { readonly granted: true; readonly inFlight: readonly string[] }
  | { readonly granted: false; readonly reason: 'in-flight-limit'; readonly inFlight: readonly string[] }
  | { readonly granted: false; readonly reason: 'claimed-by-other'; readonly holder: string };

/** A provider's refusal of the action that no later step can change (an instance it will not stop). */
export interface RefusedAction {
  readonly reason: Reason;
  readonly detail: string;
}

export interface ActingContext {
  /** What decide() asked for on this step's observation. */
  readonly decision: Decision;
  /** The run's history before this step (what decide() was given). */
  readonly history: RunHistory;
  readonly observation: Observation;
  /** The claim the step asked for before acting; `null` when it asked for none (a dry run, nothing committed). */
  readonly claim: ClaimResult | null;
  /** The provider's refusal of the action once tried; `null` when it was not tried or not refused. */
  readonly refused: RefusedAction | null;
}

/** How long a run waits before looking again when another run holds its node or the limit is full. */
export const WAIT_FOR_CLAIM_SECONDS = 5;

/** An acting rule's verdict: the outcome, and whether the run's history is kept as it was. */
type ActingOutcome = Outcome & { readonly keepHistory?: boolean };

const committedBefore = (ctx: ActingContext): boolean => ctx.history.decidedToFenceAt !== null;

/** The phase a waiting run stays in: the last one it recorded. */
const currentPhase = (ctx: ActingContext): Phase => ctx.history.steps.at(-1)?.phase ?? Phase.Assess;

/** Wait for the claim with the run's history kept, so the next step re-decides on a fresh observation. */
const waitForClaim = (ctx: ActingContext, reason: Reason, detail: string): ActingOutcome => ({
  ...wait(currentPhase(ctx), WAIT_FOR_CLAIM_SECONDS, `${describeReason(reason)} (${detail})`, [], reason),
  keepHistory: true,
});

export const claimHeldByAnotherRun: Rule<ActingContext> = {
  id: 'claim-held-by-another-run',
  contract: 'SAFETY.md rules 4 and 7: two runs never fence one node at once; the second waits for the first',
  check: (ctx) => {
    if (ctx.claim?.granted !== false || ctx.claim.reason !== 'claimed-by-other')
      return { kind: 'not-applicable' };
    return waitForClaim(ctx, Reason.AlreadyInProgress, `run ${ctx.claim.holder}`);
  },
};

export const inFlightLimitBeforeCommit: Rule<ActingContext> = {
  id: 'in-flight-limit-before-commit',
  contract:
    "SAFETY.md rule 4: the cluster's in-flight limit holds under concurrent runs: a run that would commit beyond it is refused",
  check: (ctx) => {
    if (ctx.claim?.granted !== false || ctx.claim.reason !== 'in-flight-limit' || committedBefore(ctx))
      return { kind: 'not-applicable' };
    return halt(Phase.Refused, Reason.TooManyInFlight, [], `(in flight: ${ctx.claim.inFlight.join(', ')})`);
  },
};

export const claimLostAfterCommit: Rule<ActingContext> = {
  id: 'claim-lost-after-commit',
  contract:
    'SAFETY.md rules 4 and 7: a committed run whose claim lapsed acts on nothing until it holds the claim again',
  check: (ctx) => {
    if (ctx.claim?.granted !== false || ctx.claim.reason !== 'in-flight-limit')
      return { kind: 'not-applicable' };
    return waitForClaim(ctx, Reason.TooManyInFlight, `in flight: ${ctx.claim.inFlight.join(', ')}`);
  },
};

export const providerRefusedAction: Rule<ActingContext> = {
  id: 'provider-refused-action',
  contract:
    'SAFETY.md rule 9: a provider that refuses the action for good ends the run with its reason: Refused before the commitment (nothing was done), Failed after it',
  check: (ctx) => {
    if (ctx.refused === null) return { kind: 'not-applicable' };
    const phase = committedBefore(ctx) ? Phase.Failed : Phase.Refused;
    // The action was tried: the step still reports it, with the provider's answer.
    return { ...halt(phase, ctx.refused.reason, [], ctx.refused.detail), action: ctx.decision.action };
  },
};

/** The last rule: nothing stopped the step; the decision stands. */
export const actAsDecided: Rule<ActingContext> = {
  id: 'act-as-decided',
  contract: 'SAFETY.md rule 1: the step acts on what decide() chose, and only that',
  check: (ctx) => ({
    kind: 'outcome',
    phase: ctx.decision.phase,
    action: ctx.decision.action,
    reason: ctx.decision.reason,
    message: ctx.decision.message,
    evidence: [],
    waitSeconds: ctx.decision.waitSeconds,
  }),
};

/** The acting table, in the order it is walked. */
export const ACTING_TABLE: readonly Rule<ActingContext>[] = [
  claimHeldByAnotherRun,
  inFlightLimitBeforeCommit,
  claimLostAfterCommit,
  providerRefusedAction,
  actAsDecided,
];

/**
 * The step's decision once it tried to act, by `table` (the acting table unless a test leaves a rule
 * out): decide()'s own when nothing stopped it.
 */
export function decideActing(
  ctx: ActingContext,
  table: readonly Rule<ActingContext>[] = ACTING_TABLE,
): Decision {
  const { rule, outcome } = walk(table, ctx);
  if (rule === actAsDecided.id) return ctx.decision;
  const { phase, action, reason, message, waitSeconds } = outcome;
  const kept = (outcome as ActingOutcome).keepHistory === true;
  const step: { phase: Phase; action: Action | null; reason: Reason | null; rule: string } = {
    phase,
    action,
    reason,
    rule,
  };
  return {
    phase,
    done: isTerminal(phase),
    action,
    reason,
    message,
    evidence: ctx.decision.evidence,
    waitSeconds,
    rule,
    history: kept ? ctx.history : record(ctx.history, step, ctx.observation),
  };
}
