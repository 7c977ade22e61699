/**
 * What a caller asks for. Requests are validated at the edge (lib/config, zod); the domain still refuses
 * nonsensical limits, because a limit of NaN would silently disable a safety rule.
 */
import { ValidationError } from './errors.js';

/**
 * How volumes are released once the instance is proven off.
 * - `out-of-service`: taint the node and let Kubernetes (>= 1.26) force-delete pods and force-detach.
 * - `legacy`: also taint, then force-delete the node's pods; on servers < 1.26 delete its VolumeAttachments.
 * - `auto`: `out-of-service` unless the server is known to be older than 1.26.
 */
export const Strategy = {
  Auto: 'auto',
  OutOfService: 'out-of-service',
  Legacy: 'legacy',
} as const;
export type Strategy = (typeof Strategy)[keyof typeof Strategy];

/** Safety limits for a fence run (SAFETY.md rules 2 and 4) and its deadlines. */
export interface FenceLimits {
  /** Refuse when more than this many nodes are unhealthy at once (this one included). */
  readonly maxUnhealthyNodes: number;
  /** Refuse when more than this fraction (0..1) of all nodes is unhealthy. */
  readonly maxUnhealthyFraction: number;
  /** Whether control-plane nodes may be fenced at all. */
  readonly allowControlPlane: boolean;
  /** A Lease renewed (or heartbeat posted) within this many seconds means the kubelet is alive. */
  readonly leaseGraceSeconds: number;
  /** How long after the decision to fence the provider has to report the instance off. */
  readonly powerOffDeadlineSeconds: number;
  /** How long after the proof of off the node's pods, VolumeAttachments and disks have to clear. */
  readonly drainDeadlineSeconds: number;
}

/**
 * Defaults that match Kubernetes' own timers: a node turns NotReady after 40-50 s without a Lease renewal,
 * so a Lease younger than 40 s is a live kubelet. Two unhealthy nodes in a two-node cluster are refused:
 * with half the cluster gone, a partition is as likely as a failure.
 */
export const DEFAULT_LIMITS: FenceLimits = {
  maxUnhealthyNodes: 3,
  maxUnhealthyFraction: 0.4,
  allowControlPlane: false,
  leaseGraceSeconds: 40,
  powerOffDeadlineSeconds: 300,
  drainDeadlineSeconds: 600,
};

/** A request to fence one node. */
export interface FenceRequest {
  readonly node: string;
  /** The cluster name, as in the instance's ownership tag. */
  readonly cluster: string;
  /** Report what would happen; change nothing (SAFETY.md rule 8). */
  readonly dryRun: boolean;
  readonly strategy: Strategy;
  /** Force-delete the node's terminating pods as soon as the taint is on, instead of waiting for PodGC. */
  readonly accelerate: boolean;
  /** Terminate an instance that cannot be stopped (one-time Spot). */
  readonly allowTerminate: boolean;
  /** Skip the guest OS shutdown when powering off (faster, no flush; the node is presumed hung). */
  readonly skipOsShutdown: boolean;
  /**
   * Once the instance is proven off, force-delete the node's pods that tolerate the out-of-service taint
   * and hold volumes (Kubernetes never evicts them). Off by default: such a pod was made to stay.
   */
  readonly forceDeleteTolerating: boolean;
  readonly limits: FenceLimits;
}

/** How long an un-fence run waits for the node to come back before giving up, by default. */
export const DEFAULT_UNFENCE_WAIT_SECONDS = 1800;

/** A request to remove the fencer's taint from a node that came back. */
export interface UnfenceRequest {
  readonly node: string;
  readonly cluster: string;
  readonly dryRun: boolean;
  /** How long to wait for Ready and a power cycle before refusing. */
  readonly waitSeconds: number;
}

/**
 * The smallest values that keep each rule meaningful. A kubelet renews its Lease every 10 s (a quarter of
 * the 40 s lease) and may miss a few renewals under load without being dead; the node-lifecycle
 * controller itself waits 40 s. A grace below that would read a live, busy kubelet as silent.
 */
export const LIMIT_BOUNDS = {
  leaseGraceSeconds: { min: 40, max: 3600 },
  maxUnhealthyNodes: { min: 1, max: 100_000 },
  powerOffDeadlineSeconds: { min: 10, max: 86_400 },
  drainDeadlineSeconds: { min: 10, max: 86_400 },
} as const;

/** The in-flight limit's bounds (it is the cluster's, not a request's). */
export const MAX_IN_FLIGHT_BOUNDS = { min: 1, max: 1000 } as const;

/** Throws `ValidationError` when a limit would switch off (or make meaningless) the rule it bounds. */
export function assertLimits(limits: FenceLimits): void {
  const problems: string[] = [];
  for (const [key, { min, max }] of Object.entries(LIMIT_BOUNDS)) {
    const value = limits[key as keyof typeof LIMIT_BOUNDS];
    if (!(Number.isFinite(value) && value >= min && value <= max)) {
      problems.push(`${key} must be a number from ${min} to ${max}`);
    }
  }
  const fraction = limits.maxUnhealthyFraction;
  // 1 (or more) would never refuse: "all nodes unhealthy" is the worst partition, not a fencing case.
  if (!(Number.isFinite(fraction) && fraction > 0 && fraction < 1)) {
    problems.push('maxUnhealthyFraction must be above 0 and below 1');
  }
  if (problems.length > 0) throw new ValidationError(`invalid fence limits: ${problems.join('; ')}`);
}
