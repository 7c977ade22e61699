/**
 * The parts of ECS's answers the fencer reads, as plain structural types: the SDK's model classes
 * satisfy them, and tests can write them as object literals. Field names are the SDK's (camelCase).
 */

/** One instance of DescribeInstances. */
export interface EcsInstance {
  readonly instanceId?: string;
  /** Pending | Starting | Running | Stopping | Stopped. */
  readonly status?: string;
  readonly regionId?: string;
  readonly zoneId?: string;
  /** When the instance was last started, UTC with minute precision (`2026-04-14T22:32Z`). */
  readonly startTime?: string;
  readonly hostName?: string;
  /** PrePaid (subscription) | PostPaid (pay-as-you-go). */
  readonly instanceChargeType?: string;
  /** NoSpot | SpotWithPriceLimit | SpotAsPriceGo. */
  readonly spotStrategy?: string;
  /** KeepCharging | StopCharging | Not-applicable. */
  readonly stoppedMode?: string;
  readonly operationLocks?: { readonly lockReason?: readonly EcsLock[] };
  readonly tags?: { readonly tag?: readonly { readonly tagKey?: string; readonly tagValue?: string }[] };
  readonly vpcAttributes?: { readonly privateIpAddress?: { readonly ipAddress?: readonly string[] } };
  /** Classic-network instances' private addresses. */
  readonly innerIpAddress?: { readonly ipAddress?: readonly string[] };
  readonly networkInterfaces?: { readonly networkInterface?: readonly EcsNetworkInterface[] };
}

/** An operation lock: `security`, `financial` (overdue payment), `Recycling` (spot reclaim), ... */
export interface EcsLock {
  readonly lockReason?: string;
  readonly lockMsg?: string;
}

export interface EcsNetworkInterface {
  readonly primaryIpAddress?: string;
  readonly privateIpSets?: {
    readonly privateIpSet?: readonly {
      readonly privateIpAddress?: string;
      readonly privateDnsName?: string;
    }[];
  };
  readonly ipv6Sets?: { readonly ipv6Set?: readonly { readonly ipv6Address?: string }[] };
}

/** One disk of DescribeDisks. */
export interface EcsDisk {
  readonly diskId?: string;
  /** In_use | Available | Attaching | Detaching | Creating | ReIniting. */
  readonly status?: string;
  /** The instance a single-attach disk is attached to; empty for multi-attach disks. */
  readonly instanceId?: string;
  readonly device?: string;
  /** system | data. */
  readonly type?: string;
  readonly zoneId?: string;
  /** Enabled | Disabled. */
  readonly multiAttach?: string;
  readonly attachments?: {
    readonly attachment?: readonly { readonly instanceId?: string; readonly device?: string }[];
  };
}
