import type { ActionKind } from '../../domain/action.js';
import type { Decision } from '../../domain/decision.js';
import { Phase } from '../../domain/phases.js';
import type { Reason } from '../../domain/reasons.js';

/** How a run ended, or that it has not. Step Functions Choice states and the CLI's exit code read it. */
export const RunOutcome = {
  InProgress: 'in-progress',
  Fenced: 'fenced',
  Unfenced: 'unfenced',
  Refused: 'refused',
  Failed: 'failed',
  DryRun: 'dry-run',
} as const;
export type RunOutcome = (typeof RunOutcome)[keyof typeof RunOutcome];

export const outcomeOf = (phase: Phase): RunOutcome => {
  switch (phase) {
    case Phase.Fenced:
      return RunOutcome.Fenced;
    case Phase.Unfenced:
      return RunOutcome.Unfenced;
    case Phase.Refused:
      return RunOutcome.Refused;
    case Phase.Failed:
      return RunOutcome.Failed;
    case Phase.DryRunReported:
      return RunOutcome.DryRun;
    default:
      return RunOutcome.InProgress;
  }
};

/** What one step decided and did, as plain JSON (the Step Functions state carries it). */
export interface StepDecision {
  readonly at: string;
  readonly phase: Phase;
  readonly done: boolean;
  readonly outcome: RunOutcome;
  readonly reason: Reason | null;
  readonly message: string;
  readonly waitSeconds: number;
  readonly rule: string;
  readonly action: ActionKind | null;
  /** What performing the action did, e.g. `i-0abc: stop requested (was running)`. */
  readonly actionResult: string | null;
  readonly evidence: readonly string[];
  /** How long the step took, observation to action, in milliseconds. */
  readonly tookMs: number;
}

/** The plain-JSON record of one step: what decide() said, what performing its action did, how long it took. */
export function stepDecision(
  at: string,
  decision: Decision,
  actionResult: string | null,
  startedMs: number,
): StepDecision {
  return {
    at,
    phase: decision.phase,
    done: decision.done,
    outcome: outcomeOf(decision.phase),
    reason: decision.reason,
    message: decision.message,
    waitSeconds: decision.waitSeconds,
    rule: decision.rule,
    action: decision.action?.kind ?? null,
    actionResult,
    evidence: decision.evidence,
    tookMs: Date.now() - startedMs,
  };
}
