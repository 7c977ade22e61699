/**
 * Stable reason codes for refusals, failures and waits (SAFETY.md rule 9). The code is what metrics
 * count and Kubernetes Events carry as `reason`, so codes are PascalCase like Kubernetes' own reasons
 * and never change once released; the sentence is for humans and may be reworded.
 */

export const Reason = {
  // Bad input (SAFETY.md rule 10)
  NodeNotFound: 'NodeNotFound',
  ProviderIdMissing: 'ProviderIdMissing',
  ProviderIdUnparseable: 'ProviderIdUnparseable',
  UnknownProvider: 'UnknownProvider',
  // Never fence a live node (rule 2)
  NodeReady: 'NodeReady',
  LeaseFresh: 'LeaseFresh',
  HeartbeatFresh: 'HeartbeatFresh',
  NodeCameBack: 'NodeCameBack',
  InstanceStartedAgain: 'InstanceStartedAgain',
  NeverSeenAlive: 'NeverSeenAlive',
  // Right instance (rule 3)
  InstanceNotOwned: 'InstanceNotOwned',
  WrongAccount: 'WrongAccount',
  WrongRegion: 'WrongRegion',
  InstanceNotFound: 'InstanceNotFound',
  InstanceMismatch: 'InstanceMismatch',
  TargetChanged: 'TargetChanged',
  InstanceClaimedByOtherNode: 'InstanceClaimedByOtherNode',
  IdentityMismatch: 'IdentityMismatch',
  IdentityUnproven: 'IdentityUnproven',
  AddressSharedWithOtherNode: 'AddressSharedWithOtherNode',
  AddressOfStorageDaemon: 'AddressOfStorageDaemon',
  AddressNotFenceable: 'AddressNotFenceable',
  StorageAddressesMalformed: 'StorageAddressesMalformed',
  // Bounded blast radius (rule 4)
  TooManyUnhealthy: 'TooManyUnhealthy',
  TooManyInFlight: 'TooManyInFlight',
  AlreadyInProgress: 'AlreadyInProgress',
  ControlPlaneNotAllowed: 'ControlPlaneNotAllowed',
  OptedOut: 'OptedOut',
  // Proof before release (rule 1) and the provider
  InstanceNotStoppable: 'InstanceNotStoppable',
  PowerOffNotConfirmed: 'PowerOffNotConfirmed',
  ProviderApiError: 'ProviderApiError',
  ProviderThrottled: 'ProviderThrottled',
  ProviderCredentialsRejected: 'ProviderCredentialsRejected',
  ProviderCallRejected: 'ProviderCallRejected',
  // Storage isolation (rule 1 for network images)
  NoAddressToFence: 'NoAddressToFence',
  StorageFenceNotOurs: 'StorageFenceNotOurs',
  StorageUnreachable: 'StorageUnreachable',
  StorageAuthRefused: 'StorageAuthRefused',
  StorageCommandFailed: 'StorageCommandFailed',
  BlocklistNotConfirmed: 'BlocklistNotConfirmed',
  WitnessUnreadable: 'WitnessUnreadable',
  WitnessRequired: 'WitnessRequired',
  WatchersRemain: 'WatchersRemain',
  // Releasing volumes
  OutOfServiceUnsupported: 'OutOfServiceUnsupported',
  DrainNotComplete: 'DrainNotComplete',
  PodToleratesOutOfService: 'PodToleratesOutOfService',
  // Un-fence (rule 6)
  NoPowerCycleSinceFence: 'NoPowerCycleSinceFence',
  TaintNotOwned: 'TaintNotOwned',
  NodeNotReadyYet: 'NodeNotReadyYet',
  StaleFenceRecord: 'StaleFenceRecord',
  // Errors
  StepError: 'StepError',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/** One human sentence per reason code. */
export const REASON_SENTENCES: Readonly<Record<Reason, string>> = {
  NodeNotFound: 'The node does not exist in the cluster.',
  ProviderIdMissing: 'The node has no spec.providerID, so its machine cannot be identified.',
  ProviderIdUnparseable: "The node's spec.providerID cannot be parsed into a machine reference.",
  UnknownProvider: "The node's spec.providerID names a provider this fencer is not configured for.",
  NodeReady: 'The node reports Ready=True; a live node is never fenced.',
  LeaseFresh: "The node's Lease was renewed within the grace period; its kubelet is alive.",
  HeartbeatFresh: "The node's status heartbeat is within the grace period; its kubelet is alive.",
  NodeCameBack: 'The node showed signs of life after the decision to fence; the run stops.',
  InstanceStartedAgain: 'The instance was started again after the decision to fence; the run stops.',
  NeverSeenAlive: 'The node has no Lease and no kubelet heartbeat: never seen alive is not proof of silence.',
  InstanceNotOwned: "The instance does not carry this cluster's ownership tag.",
  WrongAccount: 'The instance is not in the configured account.',
  WrongRegion: 'The instance is not in the configured region.',
  InstanceNotFound:
    'The provider does not know the instance in the configured account and region, and the run had not committed to it.',
  InstanceMismatch: 'The provider evidence names a different instance than the node.',
  TargetChanged: 'The node or its instance changed identity during the run.',
  InstanceClaimedByOtherNode:
    "Another Node object's providerID names the same instance; it may be running that node.",
  IdentityMismatch: "The node's addresses or CSI node IDs contradict the instance its providerID names.",
  IdentityUnproven:
    'Nothing but the providerID ties the node to the instance (no matching address, host name or CSI node ID).',
  AddressSharedWithOtherNode:
    "An address or range to be blocklisted for this node covers another Node's address; blocklisting it would cut that node off from storage too.",
  AddressOfStorageDaemon:
    "An address or range to be blocklisted for this node covers a storage daemon's address (a mon or the mgr); blocklisting it would cut the storage cluster off from itself.",
  AddressNotFenceable:
    'An address or range to be blocklisted for this node is loopback, the unspecified address, or wider than /16 (IPv6: /64); blocklisting it would cut off far more than the node.',
  StorageAddressesMalformed:
    "The node's kube-fencer.io/storage-addresses annotation is not a comma-separated list of IPs or CIDRs within the allowed width.",
  TooManyUnhealthy: 'Too many nodes are unhealthy at once; the network, not the nodes, is probably broken.',
  TooManyInFlight: 'Too many fencings are already in flight in this cluster.',
  AlreadyInProgress: 'Another run is already fencing this node; this run waits for it.',
  ControlPlaneNotAllowed: 'The node is a control-plane node and fencing control-plane nodes is not allowed.',
  OptedOut: 'The node has opted out of fencing by annotation.',
  InstanceNotStoppable: 'The instance cannot be stopped (one-time Spot) and terminating it is not allowed.',
  PowerOffNotConfirmed: 'The provider did not report the instance off before the deadline.',
  ProviderApiError: "The provider's API failed; its answer is not evidence of anything.",
  ProviderThrottled: "The provider's API is throttling the fencer; its answer is not evidence of anything.",
  ProviderCredentialsRejected:
    "The provider rejected the fencer's credentials (a wrong secret, a bad signature, an expired token); no retry can change that.",
  ProviderCallRejected:
    'The provider refused a call in a way no retry can change (a permission the fencer lacks); the run ends at once.',
  NoAddressToFence:
    'The node has no InternalIP and no configured range: its storage clients cannot be fenced.',
  StorageFenceNotOurs:
    "A storage fence of the node's name exists that is not the fencer's; it neither changes nor lifts it.",
  StorageUnreachable:
    "The storage cluster's API did not answer; nothing is known about the node's isolation.",
  StorageAuthRefused: "The storage cluster's API refused the fencer's credentials.",
  StorageCommandFailed: 'The storage cluster ran the fencing command and said it failed.',
  BlocklistNotConfirmed:
    "The storage cluster did not show every entry of the node's blocklist before the deadline.",
  WitnessUnreadable: "The storage cluster's witness (the images' watchers) could not be read.",
  WitnessRequired:
    'The node has no machine to power off, and no storage witness shows which addresses hold its images.',
  WatchersRemain: "The storage cluster still shows a watcher of the node's images at a fenced address.",
  OutOfServiceUnsupported: 'The API server is older than 1.26 and cannot act on the out-of-service taint.',
  DrainNotComplete: "The node's pods, VolumeAttachments or disks did not clear before the deadline.",
  PodToleratesOutOfService:
    'A pod that tolerates the out-of-service taint holds a volume on the node; Kubernetes will never evict it.',
  NoPowerCycleSinceFence: 'The instance has not been started since the fence, so the taint stays.',
  TaintNotOwned: 'The out-of-service taint was not added by this fencer, so it is not removed.',
  NodeNotReadyYet: 'The node is not Ready yet, so the taint stays.',
  StaleFenceRecord: 'The fence record names a taint that is no longer on the node; the record is cleared.',
  StepError: 'A step failed before it could decide; it is retried from the same state.',
};

/** The human sentence for a reason code. */
export const describeReason = (reason: Reason): string => REASON_SENTENCES[reason];
