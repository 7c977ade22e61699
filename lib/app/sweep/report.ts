/** A sweep's request and report: plain JSON, for the CLI, the scheduled Lambda and the logs. */
import type { SweepClass } from '../../domain/sweep/classes.js';
import type { Finding } from '../../domain/sweep/finding.js';
import type { FenceUpkeepReport } from './fence-upkeep.js';

export type { SweepRequest } from '../../domain/sweep/request.js';

export const SweepMode = {
  ReportOnly: 'report-only',
  Remediate: 'remediate',
  RemediateDryRun: 'remediate-dry-run',
} as const;
export type SweepMode = (typeof SweepMode)[keyof typeof SweepMode];

/** What one sweep found and did. */
export interface SweepReport {
  readonly cluster: string;
  readonly mode: SweepMode;
  readonly startedAt: string;
  /** When the cluster observation finished: every age in the findings is relative to it. */
  readonly observedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly scanned: {
    readonly nodes: number;
    readonly volumeAttachments: number;
    readonly persistentVolumes: number;
    readonly pendingPods: number;
    readonly storageClasses: number;
  };
  /** Findings per class, every class listed (0 included), so alarms can watch each. */
  readonly counts: Readonly<Record<SweepClass, number>>;
  /** Provider (EC2) calls the cross-check made. */
  readonly providerCalls: number;
  /**
   * Findings whose provider cross-check did not get an answer for everything it asked (throttled,
   * unreachable, budget spent, no provider configured): their conclusions rest on less than a proof,
   * so the sweep is not clean even when it deleted nothing. `faults` is a sample, one line each.
   */
  readonly crossCheck: { readonly failed: number; readonly faults: readonly string[] };
  readonly remediations: {
    readonly done: number;
    readonly dryRun: number;
    readonly refused: number;
    readonly skipped: number;
    readonly failed: number;
  };
  /** The fenced nodes' recorded blocklist entries: kept from lapsing, or why not. */
  readonly fences: FenceUpkeepReport;
  readonly findings: readonly Finding[];
}
