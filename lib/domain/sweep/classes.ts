/**
 * The classes of trouble a sweep recognises . The codes are stable:
 * metrics count findings by them and operators grep for them.
 */

export const SweepClass = {
  /** A VolumeAttachment whose node no longer exists. */
  VaNodeMissing: 'VA_NODE_MISSING',
  /** A VolumeAttachment whose PersistentVolume no longer exists. */
  VaPvMissing: 'VA_PV_MISSING',
  /** A VolumeAttachment stuck deleting behind its finalizer for longer than the threshold. */
  VaStuckDeleting: 'VA_STUCK_DELETING',
  /** A VolumeAttachment attached on a node NotReady for longer than the threshold, with no fencing in progress. */
  VaOnNotReadyNode: 'VA_ON_NOTREADY_NODE',
  /** A replacement's VolumeAttachment that has failed to attach for longer than the threshold. */
  TargetAttachStuck: 'TARGET_ATTACH_STUCK',
  /** An out-of-service taint left on a Ready node with nothing left to drain. */
  TaintLeftBehind: 'TAINT_LEFT_BEHIND',
  /** A PV whose zone has no Ready, schedulable node while a pod using it is Pending. */
  NoHealthyNodeInPvZone: 'NO_HEALTHY_NODE_IN_PV_ZONE',
  /** A StorageClass of a zonal provisioner with Immediate binding. */
  ScImmediateBinding: 'SC_IMMEDIATE_BINDING',
  /** Attach capacity exhausted on every node a Pending pod's volume could attach to. */
  NoAttachCapacity: 'NO_ATTACH_CAPACITY',
} as const;
export type SweepClass = (typeof SweepClass)[keyof typeof SweepClass];

/** Every class, in the order reports list them. */
export const SWEEP_CLASSES: readonly SweepClass[] = Object.values(SweepClass);

/** One line per class, for help texts and reports. */
export const SWEEP_CLASS_SENTENCES: Readonly<Record<SweepClass, string>> = {
  VA_NODE_MISSING: 'VolumeAttachment on a node that no longer exists',
  VA_PV_MISSING: 'VolumeAttachment for a PersistentVolume that no longer exists',
  VA_STUCK_DELETING: 'VolumeAttachment stuck deleting behind its finalizer',
  VA_ON_NOTREADY_NODE: 'VolumeAttachment attached on a NotReady node that nobody is fencing',
  TARGET_ATTACH_STUCK: "replacement's VolumeAttachment failing to attach",
  TAINT_LEFT_BEHIND: 'out-of-service taint left on a Ready node with nothing left to drain',
  NO_HEALTHY_NODE_IN_PV_ZONE:
    'PersistentVolume whose zone has no Ready, schedulable node while its pod is Pending',
  SC_IMMEDIATE_BINDING: 'StorageClass of a zonal provisioner with Immediate binding',
  NO_ATTACH_CAPACITY: 'attach capacity exhausted on every eligible node',
};
