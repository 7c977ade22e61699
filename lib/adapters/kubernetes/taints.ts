/**
 * The pure half of changing a Node's taints and annotations: what the new taint list is, and which
 * annotations actually change. Every taint the fencer does not name is carried over exactly as read
 * (SAFETY.md rule 6), including the node-lifecycle controller's and their `timeAdded`.
 */
import type { NodeView, Taint } from '../../ports/cluster.js';

/** A taint as the API takes it in a patch. */
export interface TaintJson {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
  readonly timeAdded?: string;
}

/** Kubernetes keys a taint by key and effect: two taints may share a key with different effects. */
const sameSlot = (a: Taint, b: Pick<Taint, 'key' | 'effect'>): boolean =>
  a.key === b.key && a.effect === b.effect;

/** RFC 3339 without fractions, the form the API server writes. */
const rfc3339 = (date: Date): string => date.toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * The taint list with `taint` added, or `undefined` when a taint with the same key and effect is
 * already there, whatever its value: one someone else put there is theirs, not ours to overwrite
 * or to claim. A NoExecute taint gets `timeAdded` (as kubectl does) since tolerationSeconds counts
 * from it.
 */
export const withTaint = (
  current: readonly Taint[],
  taint: Taint,
  now: Date,
): readonly Taint[] | undefined => {
  if (current.some((t) => sameSlot(t, taint))) return undefined;
  const stamped: Taint =
    taint.effect === 'NoExecute' && !taint.timeAdded ? { ...taint, timeAdded: rfc3339(now) } : taint;
  return [...current, stamped];
};

/** Two taints are the same taint when key, value, effect and timeAdded (to the second) all agree. */
export const sameTaint = (a: Taint, b: Taint): boolean =>
  a.key === b.key &&
  (a.value ?? '') === (b.value ?? '') &&
  a.effect === b.effect &&
  seconds(a.timeAdded) === seconds(b.timeAdded);

const seconds = (iso: string | undefined): number | undefined =>
  iso === undefined ? undefined : Math.floor(Date.parse(iso) / 1000);

/**
 * The taint list without exactly `taint` (every other taint stays, even one with the same key), or
 * `undefined` when it is not there.
 */
export const withoutTaint = (current: readonly Taint[], taint: Taint): readonly Taint[] | undefined => {
  const kept = current.filter((t) => !sameTaint(t, taint));
  return kept.length === current.length ? undefined : kept;
};

/**
 * The subset of `wanted` (string to set, null to delete) that differs from `current`, as a merge
 * patch of `metadata.annotations`; empty when nothing would change.
 */
export const annotationChanges = (
  current: Readonly<Record<string, string>>,
  wanted: Readonly<Record<string, string | null>>,
): Record<string, string | null> => {
  const changes: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(wanted)) {
    const present = Object.hasOwn(current, key);
    if (value === null ? present : current[key] !== value) changes[key] = value;
  }
  return changes;
};

/** A port taint in the API's shape, leaving out what is unset. */
export const toTaintJson = (taint: Taint): TaintJson => ({
  key: taint.key,
  ...(taint.value !== undefined ? { value: taint.value } : {}),
  effect: taint.effect,
  ...(taint.timeAdded !== undefined ? { timeAdded: taint.timeAdded } : {}),
});

/** A JSON merge patch of a Node that only applies to the exact version that was read. */
export interface NodePatch {
  readonly metadata: {
    /** The precondition: a concurrent writer makes the API server answer 409 Conflict. */
    readonly resourceVersion: string;
    readonly annotations?: Record<string, string | null>;
  };
  readonly spec?: { readonly taints: readonly TaintJson[] };
}

/**
 * The patch for a read-modify-write of `node`. A merge patch replaces a list whole, so `taints` is
 * the complete new list; annotations are merged key by key. The patch is built from a fresh read
 * rather than PUT back, because client-node drops fields its models do not know, and a PUT would
 * erase them.
 */
export const nodePatch = (
  node: Pick<NodeView, 'resourceVersion'>,
  change: { readonly taints?: readonly Taint[]; readonly annotations?: Record<string, string | null> },
): NodePatch => ({
  metadata: {
    resourceVersion: node.resourceVersion,
    ...(change.annotations && Object.keys(change.annotations).length > 0
      ? { annotations: change.annotations }
      : {}),
  },
  ...(change.taints ? { spec: { taints: change.taints.map(toTaintJson) } } : {}),
});
