/**
 * Kubernetes objects as the use cases see them, in plain data: the views the Cluster's role ports
 * (./cluster.ts) read and write.
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
export type { ClaimResult } from '../domain/acting.js';
