/**
 * decide(): one pure step of the fencing loop. Given what the step observed, what was asked and what the
 * run remembers, it returns the next phase, at most one action, the evidence, how long to wait, and the
 * history to carry on. All the safety rules live in the tables it walks (fence-table.ts, unfence-table.ts).
 */
import { type Decision, type Outcome, type Rule, walk } from './decision.js';
import { FENCE_TABLE } from './fence-table.js';
import { type RunHistory, record } from './history.js';
import type { Observation } from './observation.js';
import { isTerminal } from './phases.js';
import type { FenceRequest, UnfenceRequest } from './request.js';
import { baseEvidence, type FenceContext, fenceContext } from './rules/context.js';
import { unfenceContext, unfenceEvidence } from './rules/unfence-context.js';
import { unwindStorage } from './rules/unwind.js';
import { UNFENCE_TABLE } from './unfence-table.js';

function toDecision(
  rule: string,
  outcome: Outcome,
  evidence: readonly string[],
  history: RunHistory,
  observation: Observation,
): Decision {
  const { phase, action, reason, message, waitSeconds } = outcome;
  return {
    phase,
    done: isTerminal(phase),
    action,
    reason,
    message,
    evidence: [...evidence, ...outcome.evidence],
    waitSeconds,
    rule,
    history: record(history, { phase, action, reason, rule }, observation),
  };
}

/**
 * Decide the next step of a fence run. Throws `ValidationError` for input that contradicts itself
 * (another node's observation, unreadable times, impossible counts); never guesses.
 */
export function decide(observation: Observation, request: FenceRequest, history: RunHistory): Decision {
  return decideWithTable(FENCE_TABLE, observation, request, history);
}

/**
 * decide() against a given fence table. The tests walk tables with one rule left out, to show that
 * every rule of the real table is needed for the contract to hold.
 */
export function decideWithTable(
  table: readonly Rule<FenceContext>[],
  observation: Observation,
  request: FenceRequest,
  history: RunHistory,
): Decision {
  const context = fenceContext(observation, request, history);
  const { rule, outcome } = walk(table, context);
  // A run that ends before releasing anything first lifts the blocklist entries it added.
  const unwind = unwindStorage(context, outcome);
  if (unwind !== null)
    return toDecision('unwind-storage', unwind, baseEvidence(context), history, observation);
  return toDecision(rule, outcome, baseEvidence(context), history, observation);
}

/**
 * Decide the next step of an un-fence run: remove the fencer's own taint once the node is Ready again
 * and its instance was started after the fence; otherwise say why and wait.
 */
export function decideUnfence(
  observation: Observation,
  request: UnfenceRequest,
  history: RunHistory,
): Decision {
  const context = unfenceContext(observation, request, history);
  const { rule, outcome } = walk(UNFENCE_TABLE, context);
  return toDecision(rule, outcome, unfenceEvidence(context), history, observation);
}
