/**
 * What the fencer knows about the machine behind a node, in provider-neutral terms.
 * Adapters translate their provider's words into these; decide() reads only these.
 */

/** Power states as the fencer understands them. Only `stopped`, `terminated` and `not-found` are "off". */
export const PowerState = {
  Pending: 'pending',
  Running: 'running',
  Stopping: 'stopping',
  Stopped: 'stopped',
  ShuttingDown: 'shutting-down',
  Terminated: 'terminated',
  NotFound: 'not-found',
  Unknown: 'unknown',
} as const;
export type PowerState = (typeof PowerState)[keyof typeof PowerState];

/** The power states that prove a machine can no longer write to its disks (SAFETY.md rule 1). */
export const OFF_STATES: ReadonlySet<PowerState> = new Set([
  PowerState.Stopped,
  PowerState.Terminated,
  PowerState.NotFound,
]);

export const isOff = (state: PowerState): boolean => OFF_STATES.has(state);

export const ProviderName = {
  Aws: 'aws',
  Alicloud: 'alicloud',
  Ceph: 'ceph',
} as const;
export type ProviderName = (typeof ProviderName)[keyof typeof ProviderName];

/** A machine named by a node's `spec.providerID`, after parsing. */
export interface InstanceRef {
  readonly provider: ProviderName;
  readonly instanceId: string;
  /** Availability zone when the providerID carries one. */
  readonly zone?: string;
}

/** One observation of a machine's power state, with the provider's own evidence. */
export interface PowerEvidence {
  readonly instanceId: string;
  readonly state: PowerState;
  /** The provider's state name, verbatim (e.g. EC2 `stopped`, ECS `Stopped`). */
  readonly providerState?: string;
  /** The provider's numeric state code when it has one (EC2: 80 = stopped). */
  readonly stateCode?: number;
  /** Why the provider says it is in that state (EC2 StateReason / StateTransitionReason). */
  readonly stateReason?: string;
  /** When the current boot began (EC2 LaunchTime), ISO 8601. A later value than a fence proves a power cycle. */
  readonly launchTime?: string;
  /**
   * How finely the provider reports `launchTime` (ECS: `minute`); absent means exact. Read through
   * `launch-time.ts`, never by comparing `launchTime` alone.
   */
  readonly launchTimePrecision?: 'millisecond' | 'second' | 'minute';
  /** Lifecycle: `spot` instances with a one-time request cannot be stopped. */
  readonly lifecycle?: 'on-demand' | 'spot' | 'spot-one-time';
  /** When this observation was made, ISO 8601. */
  readonly observedAt: string;
}

export const DiskAttachmentState = {
  Attaching: 'attaching',
  Attached: 'attached',
  Detaching: 'detaching',
  Detached: 'detached',
  Busy: 'busy',
} as const;
export type DiskAttachmentState = (typeof DiskAttachmentState)[keyof typeof DiskAttachmentState];

/** A block device the provider reports as attached (or attaching/detaching) to a machine. */
export interface DiskAttachment {
  readonly volumeId: string;
  readonly state: DiskAttachmentState;
  readonly device?: string;
  /**
   * True for the machine's boot disk. A stopped machine keeps its boot disk attached, so it never blocks
   * the end of a fence; adapters set this from the provider (EC2 RootDeviceName, ECS system disk).
   */
  readonly root?: boolean;
}

/**
 * Who the provider says the machine is: facts a Node object cannot make up about itself. A Node's
 * InternalIP, hostname and CSI node ID are compared with these before the machine may be fenced for it
 * (SAFETY.md rule 3): a providerID alone is one source, and one source is a claim, not proof.
 */
export interface InstanceIdentity {
  readonly instanceId: string;
  /** Every private IPv4/IPv6 address of the machine (all interfaces). Empty once released. */
  readonly privateIps: readonly string[];
  /** Host names the provider knows the machine by (EC2 PrivateDnsName, ECS HostName), lower case. */
  readonly hostnames: readonly string[];
}

/** The result of checking that a machine belongs to the cluster being healed (SAFETY.md rule 3). */
export type OwnershipVerdict =
  | { readonly owned: true; readonly evidence: string }
  | {
      readonly owned: false;
      /**
       * `not-found`: the provider, asked in the configured account and region, does not know the instance.
       * Never proof that it is not the cluster's, nor that it is: only the run that had resolved and
       * committed to this very instance may read it as gone (`instance-owned`).
       */
      readonly reason: 'wrong-cluster' | 'wrong-account' | 'wrong-region' | 'not-found';
      readonly detail: string;
    };
