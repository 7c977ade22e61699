/**
 * The snapshot indexed once per sweep, so every rule looks things up in O(1) instead of scanning
 * tens of thousands of objects per subject. Holds references to the snapshot's objects, never copies.
 */
import { OUT_OF_SERVICE_TAINT } from '../node-marks.js';
import type {
  SweepClaim,
  SweepCsiNode,
  SweepNode,
  SweepPersistentVolume,
  SweepPod,
  SweepSnapshot,
  SweepVolumeAttachment,
} from './model.js';

export interface SweepIndex {
  readonly snapshot: SweepSnapshot;
  /** The observation time in ms. */
  readonly now: number;
  readonly nodes: ReadonlyMap<string, SweepNode>;
  readonly persistentVolumes: ReadonlyMap<string, SweepPersistentVolume>;
  /** Claims by `namespace/name`. */
  readonly claims: ReadonlyMap<string, SweepClaim>;
  readonly csiNodes: ReadonlyMap<string, SweepCsiNode>;
  readonly attachments: ReadonlyMap<string, SweepVolumeAttachment>;
  readonly attachmentsByNode: ReadonlyMap<string, readonly SweepVolumeAttachment[]>;
  readonly attachmentsByPv: ReadonlyMap<string, readonly SweepVolumeAttachment[]>;
  readonly podsByNode: ReadonlyMap<string, readonly SweepPod[]>;
  readonly fencingsInFlight: ReadonlySet<string>;
}

function group<T>(items: readonly T[], key: (item: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === undefined) continue;
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Builds the index. An unreadable observation time is a programming error, not a finding. */
export function indexSnapshot(snapshot: SweepSnapshot): SweepIndex {
  const now = Date.parse(snapshot.observedAt);
  if (!Number.isFinite(now)) throw new Error(`sweep snapshot time is not ISO 8601: ${snapshot.observedAt}`);
  return {
    snapshot,
    now,
    nodes: new Map(snapshot.nodes.map((n) => [n.name, n])),
    persistentVolumes: new Map(snapshot.persistentVolumes.map((pv) => [pv.name, pv])),
    claims: new Map(snapshot.claims.map((c) => [`${c.namespace}/${c.name}`, c])),
    csiNodes: new Map(snapshot.csiNodes.map((c) => [c.name, c])),
    attachments: new Map(snapshot.volumeAttachments.map((va) => [va.name, va])),
    attachmentsByNode: group(snapshot.volumeAttachments, (va) => va.nodeName),
    attachmentsByPv: group(snapshot.volumeAttachments, (va) => va.persistentVolumeName),
    podsByNode: group(snapshot.podsOnTaintedNodes, (p) => p.nodeName),
    fencingsInFlight: new Set(snapshot.fencingsInFlight),
  };
}

/** Seconds from `iso` to the sweep's now; null when the time is missing or unreadable. */
export function ageSeconds(iso: string | undefined, index: SweepIndex): number | null {
  if (!iso) return null;
  const at = Date.parse(iso);
  return Number.isFinite(at) ? Math.max(0, Math.round((index.now - at) / 1000)) : null;
}

/** "5m", "2h", "40s": durations for humans. */
export function formatAge(seconds: number | null): string {
  if (seconds === null) return 'an unknown time';
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

export const hasOutOfServiceTaint = (node: SweepNode): boolean =>
  node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key);

/** Taints that keep new pods off a node (its NoSchedule and NoExecute ones). */
const blocksScheduling = (node: SweepNode): boolean =>
  node.taints.some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');

/** A node a pending pod could be placed on: Ready, not cordoned, no NoSchedule/NoExecute taint. */
export const readyAndSchedulable = (node: SweepNode): boolean =>
  node.ready === 'True' && !node.unschedulable && !blocksScheduling(node);

/** The zone a node is in, from the well-known label or its deprecated form. */
export const zoneOf = (node: SweepNode): string | undefined =>
  node.labels['topology.kubernetes.io/zone'] ?? node.labels['failure-domain.beta.kubernetes.io/zone'];

/** The PVs a pod mounts, through its claims (unbound or missing claims are skipped). */
export function volumesOfPod(pod: SweepPod, index: SweepIndex): SweepPersistentVolume[] {
  const pvs: SweepPersistentVolume[] = [];
  for (const claimName of pod.claimNames) {
    const claim = index.claims.get(`${pod.namespace}/${claimName}`);
    const pv = claim?.volumeName ? index.persistentVolumes.get(claim.volumeName) : undefined;
    if (pv) pvs.push(pv);
  }
  return pvs;
}

/** One line describing a node's readiness. */
export const describeNodeState = (node: SweepNode, index: SweepIndex): string =>
  `node ${node.name}: Ready=${node.ready}${node.readySince ? ` since ${formatAge(ageSeconds(node.readySince, index))} ago` : ''}` +
  `${node.unschedulable ? ', cordoned' : ''}${node.taints.length ? `, taints ${node.taints.map((t) => `${t.key}:${t.effect}`).join(' ')}` : ''}`;
