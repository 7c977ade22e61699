/**
 * The un-fence decision table, walked top to bottom like the fence table. Every rule before
 * `remove-taint` is a reason to keep the taint.
 */
import type { Rule } from './decision.js';
import { unfenceProviderAcceptsCalls } from './rules/provider.js';
import {
  liftBlocklist,
  nodeReadyAgain,
  powerCycled,
  removeTaint,
  staleRecordCleared,
  taintOwned,
  unfenceDryRun,
  unfenceInstanceOwned,
  unfenceInstanceResolved,
  unfenceNodeExists,
} from './rules/unfence.js';
import type { UnfenceContext } from './rules/unfence-context.js';

/** The un-fence table, in the order it is walked. */
export const UNFENCE_TABLE: readonly Rule<UnfenceContext>[] = [
  unfenceNodeExists,
  staleRecordCleared,
  taintOwned,
  unfenceInstanceResolved,
  unfenceProviderAcceptsCalls,
  nodeReadyAgain,
  unfenceInstanceOwned,
  powerCycled,
  unfenceDryRun,
  liftBlocklist,
  removeTaint,
];
