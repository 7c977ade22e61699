/**
 * The marks the fencer reads and writes on Kubernetes objects, and who owns an out-of-service taint.
 * Ownership is decided here, from the taints and the fence record as read, so that the domain, the
 * adapters and the tests agree on what "the fencer's taint" means (SAFETY.md rule 6): only a taint equal
 * in key, value, effect and `timeAdded` to the one the record names is the fencer's. An identical-looking
 * taint added later by someone else carries another `timeAdded`, and a record whose taint is gone adopts
 * nothing.
 */
import { instant, isoAt } from './time.js';

/** The taint that makes Kubernetes (>= 1.26) force-delete the node's pods and force-detach its volumes. */
export const OUT_OF_SERVICE_TAINT = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
} as const;

/** Annotations the fencer owns on a Node. */
export const FENCER_ANNOTATION = {
  /** JSON {@link FenceRecord}: what the fencer added, with the exact taint, written in the same update. */
  fenceRecord: 'kube-fencer.io/fence-record',
  /** Any value opts the node out of fencing. */
  optOut: 'kube-fencer.io/opt-out',
  /**
   * JSON checkpoint of a run that takes its steps in one process without a workflow engine (Function
   * Compute): written when the run's memory changes, read by the next attempt of the same run.
   */
  runCheckpoint: 'kube-fencer.io/run-checkpoint',
} as const;

/** A taint exactly as read from (or written to) a Node; absent fields are `null`. */
export interface TaintSnapshot {
  readonly key: string;
  readonly value: string | null;
  readonly effect: string;
  /** RFC 3339 with whole seconds, as the API server stores it. */
  readonly timeAdded: string | null;
}

/** What the fencer writes beside its taint, in the same update: the proof that the taint is its own. */
export interface FenceRecord {
  readonly runId: string;
  /** When the taint was added, ISO 8601. Un-fence needs a power cycle later than this. */
  readonly fencedAt: string;
  readonly instanceId: string;
  /** The provider state that proved the instance off, e.g. `stopped`. */
  readonly proof: string;
  /** The exact taint the fencer added. Only a taint equal to it in all four fields is the fencer's. */
  readonly taint: TaintSnapshot;
  /** Blocklist entries the fencer added to isolate the node's storage clients: exactly what it lifts. */
  readonly blocklist?: readonly string[];
  /** The node's bootID at the fence: a new one proves a reboot where no compute provider is asked. */
  readonly bootId?: string | null;
}

/** The minor version from which the out-of-service taint releases volumes (beta, on by default). */
export const OUT_OF_SERVICE_MIN_MINOR = 26;

/** Two taints are the same taint only when key, value, effect and timeAdded all agree. */
export const sameTaint = (a: TaintSnapshot, b: TaintSnapshot): boolean =>
  a.key === b.key &&
  (a.value ?? null) === (b.value ?? null) &&
  a.effect === b.effect &&
  (a.timeAdded ?? null) === (b.timeAdded ?? null);

/** Who holds the out-of-service taints of one node. */
export interface OutOfServiceState {
  /** The fencer's own taint: the one equal to the fence record's; `null` when there is none. */
  readonly ours: TaintSnapshot | null;
  /** Out-of-service taints that are not the fencer's, whatever their value or effect. */
  readonly foreign: readonly TaintSnapshot[];
  /** The record names a taint that is no longer on the node: it proves nothing and is cleared. */
  readonly staleRecord: boolean;
  /**
   * A NoExecute out-of-service taint (anyone's) is on the node: a fence, which evicts the pods and
   * releases their volumes. (Kubernetes' pod GC and attach-detach controller read the key alone, on a
   * NotReady node, so another effect releases what is already being deleted, but evicts nothing.)
   */
  readonly releasing: boolean;
}

/** Sorts a node's out-of-service taints into the fencer's and everyone else's. */
export function outOfServiceState(
  taints: readonly TaintSnapshot[],
  record: FenceRecord | null,
): OutOfServiceState {
  const outOfService = taints.filter((t) => t.key === OUT_OF_SERVICE_TAINT.key);
  const ours = record === null ? undefined : outOfService.find((t) => sameTaint(t, record.taint));
  return {
    ours: ours ?? null,
    foreign: outOfService.filter((t) => t !== ours),
    staleRecord: record !== null && ours === undefined,
    releasing: outOfService.some((t) => t.effect === OUT_OF_SERVICE_TAINT.effect),
  };
}

/** The out-of-service taint the fencer adds at `atIso`, stamped to the second as the API server stores it. */
export function outOfServiceTaintAt(atIso: string): TaintSnapshot {
  return {
    key: OUT_OF_SERVICE_TAINT.key,
    value: OUT_OF_SERVICE_TAINT.value,
    effect: OUT_OF_SERVICE_TAINT.effect,
    timeAdded: `${isoAt(instant(atIso, 'timeAdded')).slice(0, 19)}Z`,
  };
}

/** `key=value:effect@timeAdded`, for messages. */
export const describeTaint = (taint: TaintSnapshot): string =>
  `${taint.key}${taint.value === null ? '' : `=${taint.value}`}:${taint.effect}` +
  (taint.timeAdded === null ? '' : ` (added ${taint.timeAdded})`);
