/**
 * What a run has observed and done so far. Step Functions carries it between steps as plain JSON, so it
 * holds only serialisable values. It is the only memory a run has: proof of off lives here, and nowhere
 * else, so a crashed step loses nothing (SAFETY.md rule 7).
 */
import { type Action, ActionKind } from './action.js';
import type { BlocklistEvidence } from './blocklist.js';
import { ValidationError } from './errors.js';
import { isOff, type PowerEvidence, type ProviderName } from './instance.js';
import { type IsolationPlan, isolationPlan, listedEntries } from './isolation.js';
import { outOfServiceState } from './node-marks.js';
import type { Observation } from './observation.js';
import { Phase } from './phases.js';
import type { Reason } from './reasons.js';
import { instant, isoAt } from './time.js';

/** One step of the run, for the audit trail. */
export interface StepRecord {
  readonly at: string;
  readonly phase: Phase;
  readonly action: ActionKind | null;
  readonly reason: Reason | null;
  readonly rule: string | null;
}

/**
 * The node and machine the run committed to. A run never switches target halfway. A node fenced at the
 * storage layer only may have no machine the fencer knows (bare metal): then `instanceId` is empty.
 */
export interface FenceTarget {
  readonly node: string;
  readonly nodeUid: string;
  readonly provider: ProviderName | null;
  readonly instanceId: string;
  /**
   * The machine's launch time as its provider reported it when the run committed: a later report of
   * another launch time is a start after the decision, read on the provider's own clock whatever the
   * fencer's clock says (SAFETY.md rule 2).
   */
  readonly launchTime?: string;
}

/** The run's memory, threaded through every step. */
export interface RunHistory {
  readonly runId: string;
  readonly startedAt: string;
  /** Set by the step that committed to fencing. */
  readonly target: FenceTarget | null;
  /** When the run committed to fencing: the latest time in the committing step's observation. */
  readonly decidedToFenceAt: string | null;
  /** The proofs the node's release needs, fixed when the run committed. */
  readonly isolation: IsolationPlan | null;
  /** Blocklist entries already listed when the run committed: someone else's, never the fencer's to lift. */
  readonly storageBefore: readonly string[] | null;
  /** The first blocklist observation, made after the decision, that confirms every entry the node needs. */
  readonly storageProof: BlocklistEvidence | null;
  /** When a (real, not dry-run) power-off was last requested. */
  readonly powerOffRequestedAt: string | null;
  /** When a (real, not dry-run) storage fence was last requested. */
  readonly storageFenceRequestedAt: string | null;
  /** The first provider observation, made after `decidedToFenceAt`, showing the target off (SAFETY.md rule 1). */
  readonly proofOfOff: PowerEvidence | null;
  /** When a NoExecute out-of-service taint was first seen on the node after the proof. */
  readonly taintedAt: string | null;
  /**
   * Addresses the storage cluster's witness showed holding the node's images once the run had committed
   * (or as it committed): fenced for the rest of the run, whatever the witness shows later (a fenced
   * client's watch goes, and its address must stay covered). Absent: none.
   */
  readonly witnessed?: readonly string[];
  /** The most recent steps, oldest first, at most {@link MAX_STEPS}. */
  readonly steps: readonly StepRecord[];
}

/** Steps kept in the history: Step Functions payloads are capped at 256 KiB and its own history has the rest. */
export const MAX_STEPS = 100;

/** The history of a run that has not taken a step yet. */
export const startRun = (runId: string, startedAt: string): RunHistory => ({
  runId,
  startedAt,
  target: null,
  decidedToFenceAt: null,
  isolation: null,
  storageBefore: null,
  storageProof: null,
  powerOffRequestedAt: null,
  storageFenceRequestedAt: null,
  proofOfOff: null,
  taintedAt: null,
  steps: [],
});

/** The phases in which a step commits the run to fencing. */
const COMMITTING_PHASES: ReadonlySet<Phase> = new Set<Phase>([
  Phase.StorageFence,
  Phase.PowerOff,
  Phase.ConfirmOff,
]);

/**
 * The proof of off this observation gives, if any: the committed target instance, reported off
 * (`stopped`, `terminated`, `not-found`) by an observation made strictly after the decision to fence.
 * The committing step itself can never supply it, because the decision was not yet in the history.
 */
export function proofFrom(history: RunHistory, observation: Observation): PowerEvidence | null {
  const { target, decidedToFenceAt } = history;
  const instance = observation.instance;
  if (target === null || decidedToFenceAt === null || !instance?.resolved || !instance.power.ok) return null;
  const power = instance.power.value;
  if (instance.ref.instanceId !== target.instanceId || power.instanceId !== target.instanceId) return null;
  if (!isOff(power.state)) return null;
  const after = instant(power.observedAt, 'power.observedAt') > instant(decidedToFenceAt, 'decidedToFenceAt');
  return after ? power : null;
}

/**
 * The storage proof this observation gives, if any: the node's blocklist confirmed by an observation
 * made strictly after the decision to fence (the committing step itself never supplies it).
 */
export function storageProofFrom(history: RunHistory, observation: Observation): BlocklistEvidence | null {
  const { decidedToFenceAt } = history;
  const blocklist = observation.storage?.blocklist;
  if (decidedToFenceAt === null || !blocklist?.ok || !blocklist.value.confirmed) return null;
  const after =
    instant(blocklist.value.observedAt, 'blocklist.observedAt') >
    instant(decidedToFenceAt, 'decidedToFenceAt');
  return after ? blocklist.value : null;
}

/**
 * Throws `ValidationError` for a history that contradicts itself. Step Functions carries the history as
 * data; a proof without a decision, or older than it, must never pass for proof (SAFETY.md rules 1, 10).
 */
export function assertHistory(history: RunHistory): void {
  const { runId, target, decidedToFenceAt, proofOfOff, taintedAt } = history;
  const problems: string[] = [];
  if (runId.length === 0) problems.push('runId is empty');
  instant(history.startedAt, 'startedAt');
  if ((target === null) !== (decidedToFenceAt === null))
    problems.push('target and decidedToFenceAt go together');
  if (proofOfOff !== null) {
    const decided = decidedToFenceAt === null ? null : instant(decidedToFenceAt, 'decidedToFenceAt');
    if (decided === null || instant(proofOfOff.observedAt, 'proofOfOff.observedAt') <= decided) {
      problems.push('proofOfOff was not observed after decidedToFenceAt');
    }
    if (!isOff(proofOfOff.state)) problems.push(`proofOfOff shows ${proofOfOff.state}, which is not off`);
    if (target !== null && proofOfOff.instanceId !== target.instanceId)
      problems.push('proofOfOff is about another instance');
  }
  if (history.storageProof !== null) {
    const decided = decidedToFenceAt === null ? null : instant(decidedToFenceAt, 'decidedToFenceAt');
    if (decided === null || instant(history.storageProof.observedAt, 'storageProof.observedAt') <= decided) {
      problems.push('storageProof was not observed after decidedToFenceAt');
    }
    if (!history.storageProof.confirmed) problems.push('storageProof does not confirm the blocklist');
  }
  if ((target === null) !== (history.isolation === null)) problems.push('target and isolation go together');
  if (taintedAt !== null && proofOfOff === null && history.storageProof === null)
    problems.push('taintedAt without any proof');
  if (problems.length > 0) throw new ValidationError(`inconsistent run history: ${problems.join('; ')}`);
}

/** The latest time in an observation: a decision made on it cannot be earlier. */
function latestTimeIn(observation: Observation): string {
  let latest = instant(observation.observedAt, 'observedAt');
  const instance = observation.instance;
  if (instance?.resolved && instance.power.ok) {
    latest = Math.max(latest, instant(instance.power.value.observedAt, 'power.observedAt'));
  }
  return isoAt(latest);
}

function committedTarget(observation: Observation): FenceTarget | null {
  const { node, instance } = observation;
  if (node === null) return null;
  if (instance?.resolved) {
    const launchTime = instance.power.ok ? instance.power.value.launchTime : undefined;
    return {
      node: node.name,
      nodeUid: node.uid,
      provider: instance.ref.provider,
      instanceId: instance.ref.instanceId,
      ...(launchTime !== undefined ? { launchTime } : {}),
    };
  }
  // A node fenced only at the storage layer (bare metal) has no machine to name.
  return isolationPlan(observation).machine
    ? null
    : { node: node.name, nodeUid: node.uid, provider: null, instanceId: '' };
}

/** The fields of a decision that {@link record} needs. */
export interface StepOutcome {
  readonly phase: Phase;
  readonly action: Action | null;
  readonly reason: Reason | null;
  readonly rule?: string;
}

/** The next history: what this step observed (proof, taint) and decided (commitment, power-off, step). */
export function record(history: RunHistory, decision: StepOutcome, observation: Observation): RunHistory {
  const at = observation.observedAt;
  const commits = history.decidedToFenceAt === null && COMMITTING_PHASES.has(decision.phase);
  const target = commits ? committedTarget(observation) : history.target;
  const decidedToFenceAt = commits && target !== null ? latestTimeIn(observation) : history.decidedToFenceAt;
  const committing = commits && target !== null;
  const blocklist = observation.storage?.blocklist;
  const isolation = committing ? isolationPlan(observation) : history.isolation;
  const storageBefore = committing
    ? blocklist?.ok
      ? listedEntries(blocklist.value)
      : []
    : history.storageBefore;
  const requestsPowerOff = decision.action?.kind === ActionKind.PowerOff && !decision.action.dryRun;
  const requestsStorageFence = decision.action?.kind === ActionKind.StorageFence && !decision.action.dryRun;
  const proofOfOff = history.proofOfOff ?? proofFrom(history, observation);
  const storageProof = history.storageProof ?? storageProofFrom(history, observation);
  const node = observation.node;
  const tainted =
    (proofOfOff !== null || storageProof !== null) &&
    node !== null &&
    outOfServiceState(node.outOfServiceTaints, node.fenceRecord).releasing;
  const step: StepRecord = {
    at,
    phase: decision.phase,
    action: decision.action?.kind ?? null,
    reason: decision.reason,
    rule: decision.rule ?? null,
  };
  const seen = decidedToFenceAt !== null ? (observation.storage?.witnessed ?? []) : [];
  const witnessed = [...new Set([...(history.witnessed ?? []), ...seen])].sort();
  return {
    ...history,
    ...(witnessed.length > 0 ? { witnessed } : {}),
    target,
    decidedToFenceAt,
    isolation,
    storageBefore,
    storageProof,
    powerOffRequestedAt: requestsPowerOff ? at : history.powerOffRequestedAt,
    storageFenceRequestedAt: requestsStorageFence ? at : history.storageFenceRequestedAt,
    proofOfOff,
    taintedAt: history.taintedAt ?? (tainted ? at : null),
    steps: [...history.steps, step].slice(-MAX_STEPS),
  };
}
