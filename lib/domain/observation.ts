/**
 * What one reconcile step sees, gathered afresh every step (architecture.md). decide() trusts nothing
 * else: no in-memory state survives between steps, so everything it needs is in here or in the history.
 * Plain JSON: every time is ISO 8601 with a zone, every optional value is `null` rather than absent.
 */
import type { ProviderIdProblem } from './errors.js';
import type { DiskAttachment, InstanceRef, OwnershipVerdict, PowerEvidence } from './instance.js';
import type { FenceRecord } from './node-marks.js';

/** A Kubernetes condition status. A missing Ready condition is `Unknown`. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A provider call that failed: its answer is not evidence of anything. */
export interface ProviderFault {
  /** The error name, e.g. `ProviderApiError` or the SDK's `ThrottlingException`. */
  readonly name: string;
  readonly message: string;
}

/** A provider answer or the fault that prevented it. */
export type Fallible<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: ProviderFault };

/** The Node object, as read from the API server. */
export interface ObservedNode {
  readonly name: string;
  /** metadata.uid: tells a re-created node of the same name from the one the run started on. */
  readonly uid: string;
  /** metadata.resourceVersion: taint changes are conditional on it (safety.md rule 6). */
  readonly resourceVersion: string;
  readonly ready: ConditionStatus;
  /** The Ready condition's lastHeartbeatTime. */
  readonly lastHeartbeat: string | null;
  /** The node's Lease (kube-node-lease) spec.renewTime; `null` when there is no Lease. */
  readonly leaseRenewTime: string | null;
  /** spec.providerID verbatim; `null` when unset or empty. */
  readonly providerId: string | null;
  /** Carries the `node-role.kubernetes.io/control-plane` label. */
  readonly controlPlane: boolean;
  /** Carries the fencer's opt-out annotation. */
  readonly optedOut: boolean;
  readonly outOfServiceTaint: {
    /** A taint with key `node.kubernetes.io/out-of-service` exists (any value or effect). */
    readonly present: boolean;
    /** The fencer's fence-record annotation says the fencer added it. */
    readonly ownedByFencer: boolean;
  };
  /** The fencer's fence-record annotation, parsed; `null` when absent. */
  readonly fenceRecord: FenceRecord | null;
}

/** Cluster-wide facts for the blast-radius rules (safety.md rule 4). */
export interface ObservedCluster {
  /** Nodes in the cluster, this one included. */
  readonly totalNodes: number;
  /** Names of nodes whose Ready is False or Unknown, this one included when it is unhealthy. */
  readonly unhealthyNodes: readonly string[];
  /** Names of other nodes with a fencing in flight (claimed, not yet Fenced, Refused or Failed). */
  readonly fencingsInFlight: readonly string[];
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
      /** Disks the provider reports on the machine. */
      readonly disks: Fallible<readonly DiskAttachment[]>;
    };

/** A pod bound to the node. */
export interface ObservedPod {
  readonly namespace: string;
  readonly name: string;
  /** metadata.uid: deletes are conditional on it, so a same-named replacement elsewhere is never hit. */
  readonly uid: string;
  /** metadata.deletionTimestamp is set. */
  readonly terminating: boolean;
  /** Mounts at least one PersistentVolumeClaim, so it keeps a volume attached to the node while it exists. */
  readonly usesPersistentVolumes: boolean;
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
}

/** What still ties volumes to the node. */
export interface ObservedWorkload {
  readonly pods: readonly ObservedPod[];
  readonly volumeAttachments: readonly ObservedVolumeAttachment[];
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
}
