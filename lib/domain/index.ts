/**
 * The pure fencing domain: what is observed, what is asked, what is remembered, and the decision tables
 * that turn them into at most one action per step. Imports nothing outside this folder.
 */
export * from './action.js';
export * from './blocklist.js';
export * from './decide.js';
export {
  Compliant,
  type Decision,
  NotApplicable,
  type Outcome,
  type Rule,
  type Verdict,
} from './decision.js';
export * from './errors.js';
export { FENCE_TABLE } from './fence-table.js';
export * from './history.js';
export * from './identity.js';
export * from './instance.js';
export * from './node-marks.js';
export * from './observation.js';
export * from './phases.js';
export * from './reasons.js';
export * from './request.js';
export type { FenceContext, FenceRule } from './rules/context.js';
export type { UnfenceContext, UnfenceRule } from './rules/unfence-context.js';
export * from './strategy.js';
export { CLAIM_TTL_SECONDS, ClaimTtlSeconds, PollSeconds } from './timing.js';
export { UNFENCE_TABLE } from './unfence-table.js';
