import type { AuditLog, Clock, Metrics } from '../../ports/audit.js';
import type { Cluster } from '../../ports/cluster.js';
import type { ComputeProviders } from '../../ports/compute-providers.js';
import type { StorageFencer } from '../../ports/storage-fencer.js';

/** Everything a use case needs, built once by the composition root. */
export interface FencerDeps {
  readonly cluster: Cluster;
  readonly compute: ComputeProviders;
  /** Fencers of shared block storage (Ceph RBD), each serving the volumes of its CSI drivers. */
  readonly storage?: readonly StorageFencer[];
  /**
   * Label keys that mark a control-plane node on top of the common role labels
   * (`FENCER_CONTROL_PLANE_LABELS`). @default none
   */
  readonly controlPlaneLabels?: readonly string[];
  readonly clock: Clock;
  readonly log: AuditLog;
  readonly metrics: Metrics;
}

/** A use case's dependencies with only the Kubernetes roles it uses (lib/ports/cluster.ts). */
export type DepsWith<C> = Omit<FencerDeps, 'cluster'> & { readonly cluster: C };
