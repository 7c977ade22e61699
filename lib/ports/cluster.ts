/**
 * What the use cases need from Kubernetes, in plain data. Implemented by
 * `lib/adapters/kubernetes` on the REST API; every mutating call takes `dryRun`
 * (server-side dry run) and reports whether it changed anything.
 */

import type { SweepNode, SweepPersistentVolume, SweepVolumeAttachment } from '../domain/sweep/model.js';

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  readonly timeAdded?: string;
}

/** One of a Node's `status.addresses`. */
export interface NodeAddressView {
  readonly type: string;
  readonly address: string;
}

/** A Node as the fencer reads it: the sweep's view (lib/domain/sweep/model.ts) plus what writes need. */
export interface NodeView extends SweepNode {
  readonly uid: string;
  readonly resourceVersion: string;
  readonly createdAt: string;
  readonly lastHeartbeat?: string;
  /** The Ready condition's reason (`KubeletReady`, `NodeStatusUnknown`, `NodeStatusNeverUpdated`, ...). */
  readonly readyReason?: string;
  readonly addresses: readonly NodeAddressView[];
  /** status.nodeInfo.bootID: changes on every reboot. */
  readonly bootId?: string;
  /**
   * status.volumesInUse: the unique names (`kubernetes.io/csi/<driver>^<handle>`) of the volumes the
   * kubelet last reported mounted. A silent kubelet's last report stays.
   */
  readonly volumesInUse?: readonly string[];
  /**
   * status.volumesAttached: the unique names of the volumes the attach-detach controller attached to
   * the node, written by it (only for nodes annotated `volumes.kubernetes.io/controller-managed-attach-detach`).
   */
  readonly volumesAttached?: readonly string[];
  readonly taints: readonly Taint[];
}

/** A node's name and whether its Ready condition is True: the cheapest read of a cluster's health. */
export interface NodeReadiness {
  readonly name: string;
  readonly ready: boolean;
}

/** A node's name and providerID, all a router needs to index instances to nodes. */
export interface NodeProviderId {
  readonly name: string;
  readonly providerId?: string;
}

export interface LeaseView {
  readonly holder?: string;
  /** Last renewal (ISO 8601), on the renewer's own clock. */
  readonly renewTime?: string;
  /**
   * When the API server last stored a write to the Lease (ISO 8601, to the second): the newest time in
   * its `managedFields`, stamped on the server's clock whatever the writer's clock says.
   */
  readonly writtenAt?: string;
  readonly durationSeconds?: number;
}

/** A Lease read, stamped with the API server's `Date` (ISO 8601, one-second resolution, truncated). */
export interface LeaseRead {
  readonly lease: LeaseView | null;
  readonly servedAt: string;
}

export interface PodView {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly nodeName?: string;
  readonly phase: string;
  /** Set once deletion was requested (the pod shows Terminating). */
  readonly deletionTimestamp?: string;
  /** Names of the PersistentVolumeClaims the pod mounts. */
  readonly claimNames: readonly string[];
  /** Whether the pod tolerates every NoExecute taint (such a pod is never evicted by a taint). */
  readonly toleratesEverything: boolean;
  /** Whether the pod tolerates the out-of-service taint for good (the taint never evicts it). */
  readonly toleratesOutOfService: boolean;
  readonly ownerKind?: string;
  /** Carries `kubernetes.io/config.mirror`: the API's copy of a static pod the kubelet runs from a file. */
  readonly mirror?: boolean;
  /** Its `component` label (kubeadm's static pods: `etcd`, `kube-apiserver`). */
  readonly component?: string;
  /** Why the first waiting container waits, e.g. `ContainerCreating`; absent when none waits. */
  readonly waitingReason?: string;
  /** The scheduler's message when PodScheduled is False (e.g. `0/3 nodes are available: ...`). */
  readonly unschedulableMessage?: string;
}

/**
 * A VolumeAttachment as the use cases see it. The sweep's domain model defines the shape (the port
 * depends on the domain, never the reverse), so a sweep reads these views without copying them.
 */
export type VolumeAttachmentView = SweepVolumeAttachment;

/** Which VolumeAttachments to keep: those on `nodeName`, or on any of `nodeNames`; all when neither is set. */
export interface VolumeAttachmentFilter {
  readonly nodeName?: string;
  readonly nodeNames?: readonly string[];
}

/** A PersistentVolume as the use cases see it: the sweep's model, plus the nodes a local PV is bound to. */
export interface PersistentVolumeView extends SweepPersistentVolume {
  /** For a node-bound (local) PV, the nodes its affinity names (`kubernetes.io/hostname`). */
  readonly nodeNames?: readonly string[];
  /** `spec.csi.volumeAttributes` (ceph-csi: `pool`, `imageName`, `clusterID`), when read one by one. */
  readonly attributes?: Readonly<Record<string, string>>;
}

export interface PersistentVolumeClaimView {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** The PV it is bound to (`spec.volumeName`). */
  readonly volumeName?: string;
  readonly storageClassName?: string;
  readonly accessModes: readonly string[];
  /** `Pending`, `Bound` or `Lost`. */
  readonly phase?: string;
}

export interface StorageClassView {
  readonly name: string;
  readonly provisioner: string;
  /** `Immediate` (the API's default) or `WaitForFirstConsumer`. */
  readonly volumeBindingMode: string;
  /** The class restricts provisioning to listed topologies. */
  readonly allowedTopologies: boolean;
}

export interface CSINodeView {
  readonly name: string;
  readonly drivers: readonly {
    readonly name: string;
    readonly nodeId?: string;
    /** `allocatable.count`: the scheduler's attach limit; absent means unlimited. */
    readonly allocatableCount?: number;
  }[];
}

/** A Kubernetes object that Events are about. */
export interface EventTarget {
  readonly kind: string;
  readonly name: string;
  /** Unset for cluster-scoped objects (their Events live in `default`). */
  readonly namespace?: string;
}

/** One Event about an object, as `kubectl describe` shows it. */
export interface ObjectEventView {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  /** How many times it happened (series and legacy counts folded together). */
  readonly count: number;
  /** When it last happened, ISO 8601. */
  readonly lastSeen?: string;
  /** Who reported it, e.g. `attachdetach-controller`. */
  readonly source?: string;
}

export interface ServerVersion {
  readonly major: number;
  readonly minor: number;
  readonly gitVersion: string;
}

export interface MutationOptions {
  readonly dryRun: boolean;
}

/**
 * A node write conditional on the node as observed: with `expectedResourceVersion`, a node that
 * changed since (a heartbeat, a status update) makes the write fail with ConflictError instead of
 * being retried, so the next step re-checks it before acting (SAFETY.md rule 2).
 */
export interface NodeWriteOptions extends MutationOptions {
  readonly expectedResourceVersion?: string;
}

/** A live claim on the right to fence a node. */
export interface FencingClaim {
  readonly node: string;
  readonly runId: string;
  /** Last claim or renewal, on the API server's clock. */
  readonly renewedAt: string;
}

/** The fencings in flight, judged on the API server's clock, and the cluster's one in-flight limit. */
export interface FencingClaims {
  readonly claims: readonly FencingClaim[];
  /** How many fencings may be in flight at once in this cluster (its configuration, not a request's). */
  readonly maxInFlight: number;
  /** The API server's time when the claims were read. */
  readonly serverTime: string;
}

/** An Event recorded on a Node for the audit trail. */
export interface NodeEvent {
  readonly type: 'Normal' | 'Warning';
  /** CamelCase reason, e.g. `FencingPoweredOff`, `FencingRefused`. */
  readonly reason: string;
  readonly message: string;
  /** What the fencer did or decided, e.g. `Taint`, `Refuse`. */
  readonly action: string;
}

/** A claim on the right to fence one node: the in-flight limit holds even under concurrent runs. */
export type ClaimResult =
  | { readonly granted: true; readonly inFlight: readonly string[] }
  | { readonly granted: false; readonly reason: 'in-flight-limit'; readonly inFlight: readonly string[] }
  | { readonly granted: false; readonly reason: 'claimed-by-other'; readonly holder: string };

export interface Cluster {
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
  listCSINodes(): Promise<readonly CSINodeView[]>;
  /** The node's CSINode (the ids its CSI node plugins reported); `null` when there is none. */
  getCSINode(name: string): Promise<CSINodeView | null>;
  /** The Events about one object, newest last, at most `limit` of them (default 50). */
  listEvents(target: EventTarget, options?: { readonly limit?: number }): Promise<readonly ObjectEventView[]>;

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
  /** Records an Event on the node; best effort (an Event that cannot be written is logged, never fatal). */
  recordNodeEvent(node: string, event: NodeEvent): Promise<void>;

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

  /**
   * Resolves when something about `node` may have changed (its Node object, its pods, its
   * VolumeAttachments), or after `timeoutMs`. Watch-based: the CLI loop wakes early instead of polling.
   */
  waitForNodeChange(node: string, timeoutMs: number, signal?: AbortSignal): Promise<'changed' | 'timeout'>;
}
