/**
 * What the use cases need from Kubernetes, as ports named by role: each use case takes only the roles
 * it uses (the triggers read nodes; the sweep reads and, remediating, deletes an attachment; a fence
 * step uses them all). Implemented together by `lib/adapters/kubernetes` on the REST API.
 */
import type {
  ClaimResult,
  CSINodeView,
  EventTarget,
  FencingClaims,
  LeaseRead,
  MutationOptions,
  NodeEvent,
  NodeProviderId,
  NodeReadiness,
  NodeView,
  NodeWriteOptions,
  ObjectEventView,
  PersistentVolumeClaimView,
  PersistentVolumeView,
  PodView,
  ServerVersion,
  StorageClassView,
  Taint,
  VolumeAttachmentFilter,
  VolumeAttachmentView,
} from './cluster-views.js';

export type * from './cluster-views.js';

/** The nodes as they are now: their objects, Leases, CSINodes and the server's version. */
export interface NodeReads {
  serverVersion(): Promise<ServerVersion>;
  getNode(name: string): Promise<NodeView | null>;
  /** Every node, fetched page by page. */
  listNodes(): Promise<readonly NodeView[]>;
  /**
   * Every node's readiness, in one small read that may be a little stale (the API server's watch
   * cache): read a node again before deciding anything about it.
   */
  listNodeReadiness(): Promise<readonly NodeReadiness[]>;
  /** Every node's providerID, page by page, keeping nothing else of the nodes. */
  listNodeProviderIds(): Promise<readonly NodeProviderId[]>;
  /**
   * The node's Lease (`null` when there is none), with the API server's own time when it served it:
   * liveness is aged on that clock, so neither the fencer's clock nor the kubelet's can fake silence.
   */
  getNodeLease(name: string): Promise<LeaseRead>;
  /** The node's CSINode (the ids its CSI node plugins reported); `null` when there is none. */
  getCSINode(name: string): Promise<CSINodeView | null>;
  listCSINodes(): Promise<readonly CSINodeView[]>;
}

/** What ties volumes to nodes (pods, VolumeAttachments, PersistentVolumes and their claims, StorageClasses) and the Events about an object. */
export interface WorkloadReads {
  listPodsOnNode(nodeName: string): Promise<readonly PodView[]>;
  /**
   * VolumeAttachments, all or those of one node or of some nodes, fetched page by page; only the
   * wanted ones are kept.
   */
  listVolumeAttachments(filter?: VolumeAttachmentFilter): Promise<readonly VolumeAttachmentView[]>;
  listPersistentVolumes(): Promise<readonly PersistentVolumeView[]>;
  getVolumeAttachment(name: string): Promise<VolumeAttachmentView | null>;
  getPersistentVolume(name: string): Promise<PersistentVolumeView | null>;
  getPod(namespace: string, name: string): Promise<PodView | null>;
  /** Pods in one namespace or all, optionally only those in `phase` (a server-side field selector), page by page. */
  listPods(filter?: { readonly namespace?: string; readonly phase?: string }): Promise<readonly PodView[]>;
  getPersistentVolumeClaim(namespace: string, name: string): Promise<PersistentVolumeClaimView | null>;
  /** The claims of one namespace, or of all, page by page. */
  listPersistentVolumeClaims(namespace?: string): Promise<readonly PersistentVolumeClaimView[]>;
  listStorageClasses(): Promise<readonly StorageClassView[]>;
  /** The Events about one object, newest last, at most `limit` of them (default 50). */
  listEvents(target: EventTarget, options?: { readonly limit?: number }): Promise<readonly ObjectEventView[]>;
}

/** The fence's and the un-fence's writes, each conditional on what was observed (resourceVersion or UID), each with `dryRun`, each saying whether it changed anything. */
export interface NodeWrites {
  /**
   * Adds a taint by read-modify-write with resourceVersion (retrying on conflict), leaving other
   * taints untouched, and sets `annotations` in the same update. 'already-present' changes nothing.
   */
  addTaint(
    node: string,
    taint: Taint,
    annotations: Readonly<Record<string, string>>,
    options: NodeWriteOptions,
  ): Promise<'added' | 'already-present'>;
  /**
   * Removes exactly `taint` (equal in key, value, effect and timeAdded; every other taint stays, same
   * read-modify-write) and deletes the named annotations in the same update.
   */
  removeTaint(
    node: string,
    taint: Taint,
    removeAnnotations: readonly string[],
    options: NodeWriteOptions,
  ): Promise<'removed' | 'absent'>;
  /** Sets (string) or deletes (null) node annotations, with resourceVersion. */
  annotateNode(
    node: string,
    annotations: Readonly<Record<string, string | null>>,
    options: NodeWriteOptions,
  ): Promise<void>;
  /** Deletes a pod with grace period 0, with a UID precondition so a replacement of the same name is never hit. */
  forceDeletePod(
    pod: { readonly namespace: string; readonly name: string; readonly uid: string },
    options: MutationOptions,
  ): Promise<'deleted' | 'gone'>;
  /** Deletes a VolumeAttachment (legacy path and sweeps only), with a UID precondition. */
  deleteVolumeAttachment(
    va: { readonly name: string; readonly uid: string },
    options: MutationOptions,
  ): Promise<'deleted' | 'gone'>;
}

/** The audit trail on the node itself. */
export interface NodeEvents {
  /** Records an Event on the node; best effort (an Event that cannot be written is logged, never fatal). */
  recordNodeEvent(node: string, event: NodeEvent): Promise<void>;
}

/** The cluster's fencings in flight and its one in-flight limit, kept on the API server's clock (SAFETY.md rule 4). */
export interface FencingClaimsLedger {
  /**
   * Claims the right to fence `node` for `runId` in a shared coordination Lease, atomically
   * (resourceVersion), granting at most the cluster's in-flight limit of live claims. Claims are stamped
   * and aged on the API server's clock, never a writer's: a claim not renewed for `ttlSeconds` of server
   * time is expired. Claiming again with the same runId renews it.
   */
  claimFencing(node: string, runId: string, options: { readonly ttlSeconds: number }): Promise<ClaimResult>;
  releaseFencing(node: string, runId: string): Promise<void>;
  /** The claims renewed within `ttlSeconds` of server time, and the cluster's in-flight limit. */
  listFencingClaims(ttlSeconds: number): Promise<FencingClaims>;
  /** Sets the cluster's one in-flight limit (an operator's configuration). */
  setMaxInFlight(limit: number): Promise<void>;
}

/** Waking the in-process loop early instead of polling. */
export interface NodeWatch {
  /**
   * Resolves when something about `node` may have changed (its Node object, its pods, its
   * VolumeAttachments), or after `timeoutMs`. Watch-based: the CLI loop wakes early instead of polling.
   */
  waitForNodeChange(node: string, timeoutMs: number, signal?: AbortSignal): Promise<'changed' | 'timeout'>;
}

/** Every role at once: what the Kubernetes adapter implements and a fence step uses. */
export type Cluster = NodeReads & WorkloadReads & NodeWrites & NodeEvents & FencingClaimsLedger & NodeWatch;
