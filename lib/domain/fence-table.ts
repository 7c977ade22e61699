/**
 * The fence decision table. decide() walks it top to bottom; the first rule with an outcome decides.
 * Read it against SAFETY.md: the gates (refusals and waits) come first and run on every step, so each
 * fresh observation is re-checked before any action; the workflow rules come last and each asks for at
 * most one action.
 */
import type { Rule } from './decision.js';
import { inFlightWithinLimits, unhealthyWithinLimits } from './rules/blast-radius.js';
import { type FenceContext, stagePhase } from './rules/context.js';
import { waitOrExpire } from './rules/deadline.js';
import { identityConsistent, identityCorroborated, instanceUnique } from './rules/identity.js';
import {
  evidenceNamesInstance,
  nodeExists,
  providerIdParses,
  providerIdPresent,
  sameTarget,
} from './rules/input.js';
import { heartbeatStale, leaseStale, nodeNotReady, seenAlive } from './rules/liveness.js';
import { controlPlaneAllowed, instanceOwned, notOptedOut, strategySupported } from './rules/policy.js';
import { commit, confirmOff, dryRunReport, instanceStoppable, powerObserved } from './rules/power.js';
import { providerAcceptsCalls } from './rules/provider.js';
import {
  accelerateForceDelete,
  addTaint,
  clearStaleRecord,
  drained,
  legacyDeletePods,
  legacyDeleteVolumeAttachments,
  stillOff,
  toleratingPods,
} from './rules/release.js';
import { instanceNotStartedAgain } from './rules/started-again.js';
import {
  addressesUnique,
  confirmStorage,
  stillIsolated,
  storageObserved,
  watchesGone,
} from './rules/storage.js';
import { awayFromStorageDaemons, declaredAddressesValid, entriesFenceable } from './rules/storage-scope.js';
import { watchersGone, witnessObserved, witnessRequired } from './rules/storage-witness.js';
import { PollSeconds } from './timing.js';

/** Unreachable when the table is complete (a property test asserts it); waiting is the safe default. */
const noRuleDecided: Rule<FenceContext> = {
  id: 'no-rule-decided',
  contract: 'SAFETY.md rule 1: when in doubt, do nothing',
  check: (ctx) =>
    waitOrExpire(ctx, stagePhase(ctx), PollSeconds.ProviderRetry, 'No rule decided; waiting without acting.'),
};

/** The fence table, in the order it is walked. */
export const FENCE_TABLE: readonly Rule<FenceContext>[] = [
  // Bad input and identity (rules 10, 3, 7)
  nodeExists,
  providerIdPresent,
  providerIdParses,
  sameTarget,
  // A provider error judged permanent ends the run at once (rule 9)
  providerAcceptsCalls,
  evidenceNamesInstance,
  instanceUnique,
  declaredAddressesValid,
  entriesFenceable,
  addressesUnique,
  awayFromStorageDaemons,
  identityConsistent,
  // Never fence a live node, re-checked every step (rule 2)
  nodeNotReady,
  leaseStale,
  heartbeatStale,
  seenAlive,
  instanceNotStartedAgain,
  // Who may be fenced (rules 4, 3)
  notOptedOut,
  controlPlaneAllowed,
  instanceOwned,
  identityCorroborated,
  strategySupported,
  // Blast radius (rule 4)
  unhealthyWithinLimits,
  inFlightWithinLimits,
  // Storage isolation (rule 1 for network images)
  storageObserved,
  witnessObserved,
  witnessRequired,
  // Power (rule 1, first half; rule 8)
  instanceStoppable,
  powerObserved,
  dryRunReport,
  commit,
  confirmStorage,
  confirmOff,
  // Release (rule 1, second half; rules 5, 6)
  stillOff,
  stillIsolated,
  watchersGone,
  watchesGone,
  addTaint,
  clearStaleRecord,
  legacyDeletePods,
  toleratingPods,
  accelerateForceDelete,
  legacyDeleteVolumeAttachments,
  drained,
  noRuleDecided,
];
