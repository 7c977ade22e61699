/**
 * What decide() returns, and the verdicts its rules return. A rule is tri-state, like a cdk-nag rule:
 * compliant (this rule has no objection), not applicable (it does not speak to this situation), or an
 * outcome that ends the walk down the table.
 */
import type { Action } from './action.js';
import type { RunHistory } from './history.js';
import type { Phase } from './phases.js';
import { describeReason, type Reason } from './reasons.js';

/** The result of one step: the next phase, at most one action, and why. */
export interface Decision {
  readonly phase: Phase;
  /** True when the run ends after this step (after performing `action`, if any). */
  readonly done: boolean;
  /** The one mutating action to perform now, or `null`. In a dry run only a dry-run power-off appears. */
  readonly action: Action | null;
  /** Why the run was refused, failed, or is waiting; `null` when it is simply progressing. */
  readonly reason: Reason | null;
  readonly message: string;
  /** Observed facts that justify the decision, one per line, for the audit trail. */
  readonly evidence: readonly string[];
  /** How long the loop should wait before the next step. */
  readonly waitSeconds: number;
  /** The id of the table rule that decided. */
  readonly rule: string;
  /** The run history to carry into the next step. */
  readonly history: RunHistory;
}

/** A rule's decision, before the history is updated. */
export interface Outcome {
  readonly kind: 'outcome';
  readonly phase: Phase;
  readonly action: Action | null;
  readonly reason: Reason | null;
  readonly message: string;
  readonly evidence: readonly string[];
  readonly waitSeconds: number;
}

/** The rule has no objection; keep walking. */
export const Compliant = { kind: 'compliant' } as const;
/** The rule does not speak to this situation; keep walking. */
export const NotApplicable = { kind: 'not-applicable' } as const;

/** What a rule returns. */
export type Verdict = typeof Compliant | typeof NotApplicable | Outcome;

/** A rule in a decision table: a small pure function with a stable id and the contract clause it enforces. */
export interface Rule<C> {
  readonly id: string;
  /** The SAFETY.md rules the rule keeps, as `SAFETY.md rule N: what it asks`, for a reader checking the table. */
  readonly contract: string;
  readonly check: (context: C) => Verdict;
}

const outcome = (
  phase: Phase,
  action: Action | null,
  reason: Reason | null,
  message: string,
  evidence: readonly string[],
  waitSeconds: number,
): Outcome => ({ kind: 'outcome', phase, action, reason, message, evidence, waitSeconds });

/** End the run in `phase` (Refused or Failed) with a reason code and its sentence (SAFETY.md rule 9). */
export const halt = (
  phase: Phase,
  reason: Reason,
  evidence: readonly string[] = [],
  detail?: string,
): Outcome =>
  outcome(
    phase,
    null,
    reason,
    detail ? `${describeReason(reason)} ${detail}` : describeReason(reason),
    evidence,
    0,
  );

/** Wait and look again. */
export const wait = (
  phase: Phase,
  waitSeconds: number,
  message: string,
  evidence: readonly string[] = [],
  reason: Reason | null = null,
): Outcome => outcome(phase, null, reason, message, evidence, waitSeconds);

/** Perform one action, then look again after `waitSeconds`; `reason` when the action answers a finding. */
export const act = (
  phase: Phase,
  action: Action | null,
  message: string,
  evidence: readonly string[] = [],
  waitSeconds = 0,
  reason: Reason | null = null,
): Outcome => outcome(phase, action, reason, message, evidence, waitSeconds);

/** Whether a verdict ends the walk. */
export const isOutcome = (verdict: Verdict): verdict is Outcome => verdict.kind === 'outcome';

/** Walk a table in order; the first outcome wins. The last rule of every table always decides. */
export function walk<C>(
  table: readonly Rule<C>[],
  context: C,
): { readonly rule: string; readonly outcome: Outcome } {
  for (const rule of table) {
    const verdict = rule.check(context);
    if (isOutcome(verdict)) return { rule: rule.id, outcome: verdict };
  }
  throw new Error('decision table has no final rule');
}
