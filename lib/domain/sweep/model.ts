/**
 * What a sweep looks at, as plain data. The shapes mirror the Cluster port's views field for field, so
 * the app hands its views over without copying them (a sweep of a large cluster holds tens of
 * thousands); the domain only reads the fields named here.
 */

export interface SweepTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

export interface SweepNode {
  readonly name: string;
  readonly ready: 'True' | 'False' | 'Unknown' | 'Missing';
  /** When the Ready condition last changed, ISO 8601. */
  readonly readySince?: string;
  readonly providerId?: string;
  readonly unschedulable: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly taints: readonly SweepTaint[];
}

export interface SweepVolumeAttachment {
  readonly name: string;
  readonly uid: string;
  readonly nodeName: string;
  readonly attacher: string;
  readonly persistentVolumeName?: string;
  readonly attached: boolean;
  readonly attachError?: { readonly message: string; readonly time?: string };
  readonly detachError?: { readonly message: string; readonly time?: string };
  readonly deletionTimestamp?: string;
  readonly finalizers: readonly string[];
  readonly createdAt: string;
  /**
   * The CSI node id the attacher recorded in `csi.alpha.kubernetes.io/node-id` (for EBS the
   * instance id): it names the machine even after the Node object is gone.
   */
  readonly csiNodeId?: string;
}

export interface SweepPersistentVolume {
  readonly name: string;
  readonly driver?: string;
  readonly volumeHandle?: string;
  readonly accessModes: readonly string[];
  readonly storageClassName?: string;
  readonly claim?: { readonly namespace: string; readonly name: string };
  /** Zones from `spec.nodeAffinity` (topology.kubernetes.io/zone or the EBS CSI topology key). */
  readonly zones: readonly string[];
  /** A `local` or `hostPath` volume: it never moves to another node. */
  readonly nodeBound: boolean;
  readonly phase?: string;
}

export interface SweepPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly nodeName?: string;
  readonly phase: string;
  readonly deletionTimestamp?: string;
  readonly claimNames: readonly string[];
}

export interface SweepClaim {
  readonly namespace: string;
  readonly name: string;
  readonly volumeName?: string;
  readonly phase?: string;
}

export interface SweepStorageClass {
  readonly name: string;
  readonly provisioner: string;
  /** `Immediate` (the API's default) or `WaitForFirstConsumer`. */
  readonly volumeBindingMode: string;
  /** The class restricts provisioning to listed topologies. */
  readonly allowedTopologies: boolean;
}

export interface SweepCsiNode {
  readonly name: string;
  readonly drivers: readonly {
    readonly name: string;
    readonly nodeId?: string;
    /** The scheduler's attach limit for this driver on this node; absent means unlimited. */
    readonly allocatableCount?: number;
  }[];
}

/** How long a state must last before it is a finding. */
export interface SweepThresholds {
  /** A node NotReady this long that still holds attached volumes needs fencing. */
  readonly notReadySeconds: number;
  /** A VolumeAttachment deleting this long is stuck behind its finalizer. */
  readonly stuckDeletingSeconds: number;
  /** A VolumeAttachment failing to attach this long is stuck. */
  readonly attachErrorSeconds: number;
}

/** Defaults: past Kubernetes' own timers (eviction after 5 min, the attacher's retries), short of a page. */
export const DEFAULT_SWEEP_THRESHOLDS: SweepThresholds = {
  notReadySeconds: 180,
  stuckDeletingSeconds: 600,
  attachErrorSeconds: 300,
};

/** Everything one sweep observed. */
export interface SweepSnapshot {
  /** When the observation finished, ISO 8601 (the sweep's "now"). */
  readonly observedAt: string;
  readonly nodes: readonly SweepNode[];
  readonly volumeAttachments: readonly SweepVolumeAttachment[];
  readonly persistentVolumes: readonly SweepPersistentVolume[];
  /** Pods in phase Pending (only these can be blocked from starting by storage). */
  readonly pendingPods: readonly SweepPod[];
  /** The claims the pending pods mount. */
  readonly claims: readonly SweepClaim[];
  readonly storageClasses: readonly SweepStorageClass[];
  readonly csiNodes: readonly SweepCsiNode[];
  /** The pods bound to Ready nodes that carry the out-of-service taint. */
  readonly podsOnTaintedNodes: readonly SweepPod[];
  /** Nodes with a fencing run holding its claim. */
  readonly fencingsInFlight: readonly string[];
  /** The cluster's one in-flight limit (its configuration, read with the claims). */
  readonly maxInFlight: number;
  readonly thresholds: SweepThresholds;
}
