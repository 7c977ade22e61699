import type { DiskState } from '../domain/disk.js';
import type {
  DiskAttachment,
  InstanceIdentity,
  InstanceRef,
  OwnershipVerdict,
  PowerEvidence,
  ProviderName,
} from '../domain/instance.js';
import type { Fallible } from '../domain/observation.js';

/** Options threaded into every mutating provider call. */
export interface PowerOffOptions {
  /** Ask the provider to validate the call without acting (EC2 DryRun). */
  readonly dryRun: boolean;
  /** Skip the guest OS shutdown (EC2 SkipOsShutdown): faster, no flush. */
  readonly skipOsShutdown?: boolean;
  /** Whether a machine that cannot be stopped (one-time Spot) may be terminated instead. */
  readonly allowTerminate?: boolean;
}

/**
 * Bounds on one provider call, retries included: a fence step has a budget, and a call that outlives it
 * must fail (and be observed again by the next step), not hold the step past its deadline.
 */
export interface ProviderCallOptions {
  readonly signal?: AbortSignal;
}

/**
 * Everything a fence step needs to know about one machine, from one provider read (EC2: one
 * DescribeInstances; ECS: one DescribeInstances): whose it is, whether it is off, and who it is.
 */
export interface InstanceInspection {
  readonly ownership: OwnershipVerdict;
  readonly power: PowerEvidence;
  /** `null` when the provider does not know the machine (power is then `not-found`). */
  readonly identity: InstanceIdentity | null;
}

/** What a power-off call did. "Already off" is a value, not an error. */
export type PowerOffOutcome =
  | { readonly kind: 'requested'; readonly action: 'stop' | 'terminate'; readonly previousState: string }
  | { readonly kind: 'already-off'; readonly state: string }
  | {
      readonly kind: 'dry-run';
      readonly action: 'stop' | 'terminate';
      readonly wouldSucceed: boolean;
      readonly detail: string;
    }
  | { readonly kind: 'not-stoppable'; readonly detail: string };

/** Many answers from few provider calls: what each id came to, and how many calls it took. */
export interface BatchAnswer<T> {
  readonly results: ReadonlyMap<string, Fallible<T>>;
  readonly calls: number;
}

/** Bounds on a batch: sweeps of large clusters must not turn into a storm of provider calls. */
export interface BatchOptions {
  /** Stop after this many calls; the ids not answered by then are faults. @default 50 */
  readonly maxCalls?: number;
}

/**
 * Proves machines off and forces them off. One implementation per compute provider
 * (AWS EC2, Alibaba ECS); chosen from the node's providerID.
 */
/** A provider's reading of providerIDs: which are its own, and the instance each names. */
export interface ProviderIdReader {
  /** Whether `providerId` is this provider's (its scheme or shape), read or not: the router asks this. */
  ownsProviderId(providerId: string): boolean;
  /** Parse a node's `spec.providerID`. Throws `ProviderIdError` for anything this provider does not own. */
  parseProviderId(providerId: string | undefined): InstanceRef;
}

export interface ComputeFencer extends ProviderIdReader {
  readonly provider: ProviderName;
  /**
   * One read of the machine for a fence step: ownership, power and identity together, so a step costs
   * the provider one call, not three. `observedAt` of the power evidence is when the answer arrived.
   */
  inspect(ref: InstanceRef, cluster: string, options?: ProviderCallOptions): Promise<InstanceInspection>;
  /** Check the machine carries the cluster's ownership tag and lives in the configured account/region. */
  verifyOwnership(ref: InstanceRef, cluster: string): Promise<OwnershipVerdict>;
  /** Observe the power state now, with the provider's evidence. A missing machine is `not-found`. */
  observePower(ref: InstanceRef): Promise<PowerEvidence>;
  /** Force the machine off (stop, or terminate where allowed). Idempotent. */
  powerOff(ref: InstanceRef, options: PowerOffOptions & ProviderCallOptions): Promise<PowerOffOutcome>;
  /** Block devices the provider still reports on the machine. */
  attachedDisks(ref: InstanceRef, options?: ProviderCallOptions): Promise<readonly DiskAttachment[]>;
  /**
   * Power states of many machines in few calls (EC2: up to 1000 ids per DescribeInstances), keyed by
   * instance id. Optional: without it, callers observe one machine at a time.
   */
  observePowerMany?(
    refs: readonly InstanceRef[],
    options?: BatchOptions,
  ): Promise<BatchAnswer<PowerEvidence>>;
  /**
   * Where each disk is attached, keyed by volume id; a disk the provider does not know is
   * `exists: false` (only when the provider said so). Optional: without it, disks cannot be proven released.
   */
  describeDisks?(volumeIds: readonly string[], options?: BatchOptions): Promise<BatchAnswer<DiskState>>;
  /**
   * Whether `zone` lies in the region this fencer asks, by the provider's own naming rules: where its
   * "disk does not exist" is true. Required of a provider whose `describeDisks` can answer `exists: false`.
   */
  holdsZone?(zone: string): boolean;
}
