/** What a sweep is asked to do. Validated at the edge (lib/config/sweep-request.ts). */
import type { SweepThresholds } from './model.js';
import type { FencingLimits } from './remediation.js';

export interface SweepRequest {
  /** The cluster name, as in the instances' ownership tag. */
  readonly cluster: string;
  readonly thresholds: SweepThresholds;
  /** Act on the findings SAFETY.md rule 5 allows (off by default: report only). */
  readonly remediate: boolean;
  /** With `remediate`: say what would be done, change nothing (server-side dry run). */
  readonly dryRun: boolean;
  /** Limits on starting fencings for VA_ON_NOTREADY_NODE findings (SAFETY.md rule 4). */
  readonly limits: FencingLimits;
  /** The most provider calls one sweep may make. */
  readonly maxProviderCalls: number;
}
