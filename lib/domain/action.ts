/**
 * The mutating actions decide() can ask for, at most one per step. The app performs each idempotently
 * and reports whether it changed anything; every Kubernetes write is conditional (resourceVersion or uid
 * preconditions), so an action decided on a stale observation fails instead of doing harm.
 */
import type { InstanceRef } from './instance.js';
import type { FenceRecord, TaintSnapshot } from './node-marks.js';

export const ActionKind = {
  PowerOff: 'power-off',
  Taint: 'taint',
  ForceDeletePods: 'force-delete-pods',
  DeletePods: 'delete-pods',
  DeleteVolumeAttachments: 'delete-volume-attachments',
  RemoveTaint: 'remove-taint',
  ClearFenceRecord: 'clear-fence-record',
  StorageFence: 'storage-fence',
  StorageLift: 'storage-lift',
} as const;
export type ActionKind = (typeof ActionKind)[keyof typeof ActionKind];

/** A Kubernetes object to delete, with the uid its deletion is conditional on. */
export interface ObjectRef {
  readonly namespace: string | null;
  readonly name: string;
  readonly uid: string;
}

/** Force the instance off through the provider (stop; terminate only when allowed and required). */
export interface PowerOffAction {
  readonly kind: typeof ActionKind.PowerOff;
  readonly instance: InstanceRef;
  /** Use the provider's own dry run (EC2 DryRun): the only action a dry run ever carries. */
  readonly dryRun: boolean;
  readonly skipOsShutdown: boolean;
  readonly allowTerminate: boolean;
}

/**
 * Isolate the node's storage clients (Ceph: blocklist its addresses in the OSD map), then read the list
 * back. With `dryRun` only what would be added is reported.
 */
export interface StorageFenceAction {
  readonly kind: typeof ActionKind.StorageFence;
  readonly node: string;
  /** The node's InternalIP addresses, as observed. */
  readonly addresses: readonly string[];
  /** The storage addresses the Node declares (its `kube-fencer.io/storage-addresses` annotation). */
  readonly declared: readonly string[];
  /** Addresses the storage cluster's witness shows holding the node's images, fenced too. */
  readonly witnessed?: readonly string[];
  readonly dryRun: boolean;
}

/** Un-fence: remove exactly the blocklist entries the fence record says the fencer added. */
export interface StorageLiftAction {
  readonly kind: typeof ActionKind.StorageLift;
  readonly node: string;
  readonly entries: readonly string[];
}

/**
 * Add the out-of-service taint and the fence record in ONE update conditional on `expectedResourceVersion`:
 * if the node changed since it was observed (a heartbeat, a status change), the write fails with a
 * ConflictError and the next step re-checks. Other taints are left untouched. `taint` is exact (its
 * `timeAdded` included) and equals `record.taint`; when the fencer's own taint is already there (an
 * earlier run's), only the record is rewritten for this run.
 */
export interface TaintAction {
  readonly kind: typeof ActionKind.Taint;
  readonly node: string;
  readonly expectedResourceVersion: string;
  readonly taint: TaintSnapshot;
  readonly record: FenceRecord;
}

/** Delete the node's terminating pods with grace period 0 (what PodGC would do, sooner). */
export interface ForceDeletePodsAction {
  readonly kind: typeof ActionKind.ForceDeletePods;
  readonly node: string;
  readonly pods: readonly ObjectRef[];
}

/** Legacy path: delete, with grace period 0, the node's pods that hold volumes or are terminating. */
export interface DeletePodsAction {
  readonly kind: typeof ActionKind.DeletePods;
  readonly node: string;
  readonly pods: readonly ObjectRef[];
}

/** Legacy path on servers < 1.26 only: delete the node's VolumeAttachments once its pods are gone. */
export interface DeleteVolumeAttachmentsAction {
  readonly kind: typeof ActionKind.DeleteVolumeAttachments;
  readonly node: string;
  readonly volumeAttachments: readonly ObjectRef[];
}

/**
 * Un-fence: remove exactly `taint` (equal in key, value, effect and timeAdded; every other taint stays)
 * and the fence record, in one update conditional on `expectedResourceVersion`.
 */
export interface RemoveTaintAction {
  readonly kind: typeof ActionKind.RemoveTaint;
  readonly node: string;
  readonly expectedResourceVersion: string;
  readonly taint: TaintSnapshot;
  readonly fenceRunId: string;
}

/**
 * Remove a fence record whose taint is gone (removed by hand, say): it proves nothing and must never
 * make a later out-of-service taint look like the fencer's. Conditional on `expectedResourceVersion`.
 */
export interface ClearFenceRecordAction {
  readonly kind: typeof ActionKind.ClearFenceRecord;
  readonly node: string;
  readonly expectedResourceVersion: string;
  /** The run the stale record names, for the audit trail. */
  readonly fenceRunId: string;
}

/** One mutating action. */
export type Action =
  | PowerOffAction
  | TaintAction
  | ForceDeletePodsAction
  | DeletePodsAction
  | DeleteVolumeAttachmentsAction
  | RemoveTaintAction
  | ClearFenceRecordAction
  | StorageFenceAction
  | StorageLiftAction;

/** Actions that release the node's volumes: each needs proof of off first (SAFETY.md rule 1). */
export const RELEASE_ACTIONS: ReadonlySet<ActionKind> = new Set<ActionKind>([
  ActionKind.Taint,
  ActionKind.ForceDeletePods,
  ActionKind.DeletePods,
  ActionKind.DeleteVolumeAttachments,
]);
