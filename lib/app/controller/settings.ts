/** What `fencer controller` is configured with, and what it is given to act through. */
import type { ControllerMetrics } from '../../ports/controller-metrics.js';
import type { LeaderLock } from '../../ports/leadership.js';
import type { NodeChanges } from '../../ports/node-changes.js';
import type { RemediationCodec, RemediationStore } from '../../ports/remediations.js';
import type { RunCheckpoints } from '../fence/run-checkpoint.js';
import type { FencerDeps } from '../shared/deps.js';
import type { SweepRequest } from '../sweep/index.js';
import type { FenceRequestDefaults } from '../triggers/trigger-types.js';
import type { ElectionTiming } from './leader-election.js';

export interface ControllerSettings {
  /** This replica's name in the leader Lease (the pod's name in a cluster). */
  readonly identity: string;
  readonly cluster: string;
  readonly requestDefaults: FenceRequestDefaults;
  /** How long a node must be NotReady before the health check fences it. */
  readonly notReadyThresholdSeconds: number;
  /** The longest pause between two health checks; a Node change ends it early. */
  readonly healthCheckIntervalSeconds: number;
  /** Sweeps on this schedule, or none when absent. */
  readonly sweep?: { readonly intervalSeconds: number; readonly request: SweepRequest };
  readonly runTimeoutSeconds: number;
  /** Un-fence nodes that come back after a power cycle. */
  readonly unfence: boolean;
  readonly controlPlaneLabels?: readonly string[];
  readonly election?: ElectionTiming;
}

export interface ControllerDeps {
  readonly fencer: FencerDeps & { readonly cluster: FencerDeps['cluster'] & NodeChanges };
  readonly lock: LeaderLock;
  readonly metrics: ControllerMetrics;
  /** The sealed checkpoints of one run (the composition root holds the seal key). */
  readonly checkpointsFor: (runId: string) => RunCheckpoints;
  /** medik8s NHC's remediations (docs/nhc.md), when the controller serves them. */
  readonly remediations?: { readonly store: RemediationStore; readonly codec: RemediationCodec };
}
