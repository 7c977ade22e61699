/**
 * What one reconcile step sees, gathered afresh every step (docs/architecture.md#the-reconcile-loop).
 * decide() trusts nothing else: no in-memory state survives between steps, so everything it needs is in
 * here or in the history.
 * Plain JSON: every time is ISO 8601 with a zone, every optional value is `null` rather than absent.
 */

import type { BlocklistEvidence } from './blocklist.js';
import type { ProviderIdProblem } from './errors.js';
import type {
  DiskAttachment,
  InstanceIdentity,
  InstanceRef,
  OwnershipVerdict,
  PowerEvidence,
} from './instance.js';
import type { FenceRecord, TaintSnapshot } from './node-marks.js';
import type { ScopeConflict } from './storage-scope.js';

/** A Kubernetes condition status. A missing Ready condition is `Unknown`. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A provider call that failed: its answer is not evidence of anything. */
export interface ProviderFault {
  /** The error name, e.g. `ProviderApiError` or the SDK's `ThrottlingException`. */
  readonly name: string;
  readonly message: string;
  /** The provider refused for load (throttling): asking again at once only makes it worse. */
  readonly throttled?: boolean;
  /** A storage system's failure code (e.g. `MgrUnreachable`, `AuthRefused`), when it gave one. */
  readonly code?: string;
  /**
   * The adapter judged that asking again cannot succeed: `credentials` when the provider rejected the
   * fencer's credentials (a wrong secret, a bad signature, an expired token), `rejected` for any other
   * refusal (a permission the fencer lacks). The run ends at once; it never retries such a fault.
   */
  readonly permanent?: 'credentials' | 'rejected';
}

/** A provider answer or the fault that prevented it. */
export type Fallible<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: ProviderFault };

/** One of `status.addresses`: `InternalIP`, `ExternalIP`, `InternalDNS`, `ExternalDNS` or `Hostname`. */
export interface NodeAddress {
  readonly type: string;
  readonly address: string;
}

/** A CSI driver's id for the node, from CSINode `spec.drivers[]` (what the driver's node plugin reported). */
export interface CsiNodeId {
  readonly driver: string;
  readonly nodeId: string;
}

/** The Node object, as read from the API server. */
export interface ObservedNode {
  readonly name: string;
  /** metadata.uid: tells a re-created node of the same name from the one the run started on. */
  readonly uid: string;
  /** metadata.resourceVersion: taint changes are conditional on it (SAFETY.md rule 6). */
  readonly resourceVersion: string;
  /**
   * When the Node and its Lease were read, ISO 8601. Liveness is aged against this time, not against the
   * end of the step: a Lease that was fresh when read stays fresh however slow the provider was after.
   */
  readonly readAt: string;
  readonly ready: ConditionStatus;
  /** The Ready condition's reason, e.g. `KubeletReady`, `NodeStatusUnknown`, `NodeStatusNeverUpdated`. */
  readonly readyReason: string | null;
  /** The Ready condition's lastHeartbeatTime. */
  readonly lastHeartbeat: string | null;
  /** The node's Lease (kube-node-lease) spec.renewTime, on its kubelet's clock; `null` when there is no Lease. */
  readonly leaseRenewTime: string | null;
  /**
   * When the API server last stored a write to that Lease, on its own clock and to the second (the
   * newest managedFields time); `null` when there is no Lease or the server recorded none. A kubelet whose
   * clock runs behind writes a renewTime that looks old while it renews: this one does not.
   */
  readonly leaseWrittenAt: string | null;
  /** spec.providerID verbatim; `null` when unset or empty. */
  readonly providerId: string | null;
  /** status.addresses as the kubelet (or cloud controller) reported them. */
  readonly addresses: readonly NodeAddress[];
  /** The node's ids in its CSINode object, one per CSI driver; empty when there is no CSINode. */
  readonly csiNodeIds: readonly CsiNodeId[];
  /** status.nodeInfo.bootID: a new one proves a reboot where there is no compute provider to ask. */
  readonly bootId: string | null;
  /**
   * The control plane by any sign `control-plane.ts` knows: a role label (`control-plane`, `master`,
   * RKE's `controlplane`, `etcd`), a label the operator names, a static etcd or kube-apiserver pod.
   */
  readonly controlPlane: boolean;
  /** Those signs in words, for the refusal's evidence. */
  readonly controlPlaneSignals?: readonly string[];
  /** Carries the fencer's opt-out annotation. */
  readonly optedOut: boolean;
  /** Every taint keyed `node.kubernetes.io/out-of-service`, exactly as read (whoever added it). */
  readonly outOfServiceTaints: readonly TaintSnapshot[];
  /** The fencer's fence-record annotation, parsed; `null` when absent or unreadable. */
  readonly fenceRecord: FenceRecord | null;
}

/** Cluster-wide facts for the blast-radius rules (SAFETY.md rule 4). */
export interface ObservedCluster {
  /** Nodes in the cluster, this one included. */
  readonly totalNodes: number;
  /** Names of nodes whose Ready is False or Unknown, this one included when it is unhealthy. */
  readonly unhealthyNodes: readonly string[];
  /** Names of other nodes with a fencing in flight (claimed, not yet Fenced, Refused or Failed). */
  readonly fencingsInFlight: readonly string[];
  /** The cluster's one in-flight limit (from its configuration, never from a request). */
  readonly maxInFlight: number;
  /** The API server's version; `null` when it could not be read. */
  readonly serverVersion: { readonly major: number; readonly minor: number } | null;
}

/** The machine behind the node, when its providerID could be resolved. */
export type ObservedInstance =
  | { readonly resolved: false; readonly problem: ProviderIdProblem; readonly detail: string }
  | {
      readonly resolved: true;
      readonly ref: InstanceRef;
      readonly ownership: Fallible<OwnershipVerdict>;
      readonly power: Fallible<PowerEvidence>;
      /** Who the provider says the machine is; `null` when the provider does not know it. */
      readonly identity: Fallible<InstanceIdentity | null>;
      /** Other Node objects whose providerID names the same machine. */
      readonly otherNodes: readonly string[];
      /** Disks the provider reports on the machine; `null` when this step did not need to ask. */
      readonly disks: Fallible<readonly DiskAttachment[]> | null;
    };

/** A pod bound to the node. */
export interface ObservedPod {
  readonly namespace: string;
  readonly name: string;
  /** metadata.uid: deletes are conditional on it, so a same-named replacement elsewhere is never hit. */
  readonly uid: string;
  /** metadata.deletionTimestamp is set. */
  readonly terminating: boolean;
  /** The PersistentVolumeClaims it mounts: while it exists, their volumes stay attached to the node. */
  readonly claimNames: readonly string[];
  /** Tolerates the out-of-service taint (NoExecute), so the taint never evicts it. */
  readonly toleratesOutOfService: boolean;
}

/** A VolumeAttachment whose spec.nodeName is the node. */
export interface ObservedVolumeAttachment {
  readonly name: string;
  /** metadata.uid: deletes are conditional on it. */
  readonly uid: string;
  /** spec.source.persistentVolumeName. */
  readonly persistentVolume: string | null;
  /** status.attached. */
  readonly attached: boolean;
  /** metadata.deletionTimestamp is set. */
  readonly deleting: boolean;
  readonly attachError: string | null;
  readonly detachError: string | null;
  /** spec.attacher: the CSI driver. */
  readonly attacher: string | null;
  /**
   * The volume is a network image whose lock is the node's client (Ceph RBD), not a disk attached to its
   * machine: isolating the node's storage clients releases it.
   */
  readonly image: boolean;
  /**
   * A network image on a storage cluster no configured storage fencer reaches (its CSI cluster id, or
   * `unknown` when its PersistentVolume does not say): no blocklist proves it, only the machine's
   * power-off releases it. Absent: the image's fencer (if any) serves its cluster.
   */
  readonly unservedCluster?: string;
  /** The attacher's id for the node (annotation `csi.alpha.kubernetes.io/node-id`), when set. */
  readonly csiNodeId: string | null;
}

/** What still ties volumes to the node. */
export interface ObservedWorkload {
  readonly pods: readonly ObservedPod[];
  readonly volumeAttachments: readonly ObservedVolumeAttachment[];
  /**
   * Network images the node's kubelet last reported in use (status.volumesInUse), by unique name, with
   * or without a VolumeAttachment left: a node tainted by hand loses its attachments at once, yet its
   * silent clients may still hold the images. Absent: none.
   */
  readonly imagesInUse?: readonly string[];
  /**
   * Images the kubelet last reported in use that live on a storage cluster no configured storage
   * fencer reaches (see `ObservedVolumeAttachment.unservedCluster`). Absent: none.
   */
  readonly unservedImagesInUse?: readonly string[];
}

/** A client the storage cluster reports holding an image (a watcher of its header object). */
export interface ImageHolder {
  /** `pool/image`. */
  readonly image: string;
  /** The client's IP address, as the storage cluster sees it. */
  readonly address: string;
  /** The client's own name there (`client.4156`), for evidence. */
  readonly client: string;
}

/** One reading of the holders of a node's images, straight from the storage cluster. */
export interface HolderEvidence {
  /** How they were read (`rbd status as client.kube-fencer-witness`). */
  readonly source: string;
  /** When, ISO 8601. */
  readonly observedAt: string;
  /** The images asked about (`pool/image`). */
  readonly images: readonly string[];
  readonly holders: readonly ImageHolder[];
}

/** The node's storage clients, as the storage system sees them (Ceph's OSD blocklist). */
export interface ObservedStorage {
  /** The storage system whose fencer isolates the node's images, e.g. `ceph-rbd`. */
  readonly storage: string;
  /** The node's InternalIP addresses: what its clients are fenced by. */
  readonly addresses: readonly string[];
  /** What the Node declares in its `kube-fencer.io/storage-addresses` annotation, validated. */
  readonly declared: readonly string[];
  /** Why that annotation is malformed, or `null` (absent or valid). Malformed: nothing is fenced. */
  readonly declaredError: string | null;
  /**
   * Other Node objects that one of the entries to be blocklisted covers (any of their address types,
   * compared as ranges): fencing would cut that node off too.
   */
  readonly otherNodesSharingAddresses: readonly string[];
  /** Every entry to be blocklisted that covers another Node's or a storage daemon's address. */
  readonly conflicts: readonly ScopeConflict[];
  /**
   * What the storage cluster itself reports holding the node's images (each image's watchers, read by
   * the storage fencer's witness): absent when the deployment has no witness.
   */
  readonly holders?: Fallible<HolderEvidence>;
  /**
   * Images the kubelet reports in use (`volumesInUse`) that the witness could not be asked about: no
   * PersistentVolume names them any more, so nothing names their pool and image. Absent: none.
   */
  readonly unwitnessed?: readonly string[];
  /**
   * Addresses the witness shows holding one of the node's images that neither the node's own entries
   * nor another Node's addresses account for: fenced too (a storage network the kubelet does not report).
   */
  readonly witnessed?: readonly string[];
  /** The blocklist entries the node needs, and what the storage cluster lists. */
  readonly blocklist: Fallible<BlocklistEvidence>;
}

/** Everything one step observed. */
export interface Observation {
  /** When the observation finished, ISO 8601 (the step's "now"). */
  readonly observedAt: string;
  /** `null` when the node does not exist. */
  readonly node: ObservedNode | null;
  readonly cluster: ObservedCluster;
  /** `null` when there is no node to resolve an instance from. */
  readonly instance: ObservedInstance | null;
  readonly workload: ObservedWorkload;
  /** The node's storage isolation; `null` when no storage fencer serves its images (or it holds none). */
  readonly storage: ObservedStorage | null;
}
