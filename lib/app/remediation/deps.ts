/** What the NHC remediation use case needs, what it is told, and what it reports. */
import type { RemediationCodec, RemediationStore } from '../../ports/remediations.js';
import type { RunRecords } from '../../ports/run-records.js';
import type { FencerDeps } from '../shared/deps.js';
import type { FenceRequestDefaults, TriggerDeps } from '../triggers/trigger-types.js';

export interface RemediationDeps {
  /** Starts the runs (lib/app/triggers/start-for-node.ts), as every trigger does. */
  readonly triggers: TriggerDeps;
  /** Reads the node's marks and un-fences (lib/app/fence/run-loop.ts `runUnfence`). */
  readonly fencer: FencerDeps;
  readonly remediations: RemediationStore;
  /** lib/config/remediation.ts `remediationCodec`. */
  readonly codec: RemediationCodec;
  /** What the workflow remembers of the runs it started: the same object as `triggers.workflow`, as a rule. */
  readonly runs: RunRecords;
}

/** How long an un-fence attempt may take: one step, or a few when the node comes back meanwhile. */
export const DEFAULT_UNFENCE_TIMEOUT_SECONDS = 120;
/** A refused un-fence is tried again when the Node changed, or after this long. */
export const DEFAULT_UNFENCE_RETRY_SECONDS = 60;

export interface RemediationSettings {
  /** The cluster this deployment fences, as in `kubernetes.io/cluster/<name>`. */
  readonly cluster: string;
  /** The request every run starts from; a remediation's spec may only make it more careful. */
  readonly requestDefaults: FenceRequestDefaults;
  /** @default DEFAULT_UNFENCE_TIMEOUT_SECONDS */
  readonly unfenceTimeoutSeconds?: number;
  /** @default DEFAULT_UNFENCE_RETRY_SECONDS */
  readonly unfenceRetrySeconds?: number;
}

/** What one reconcile did with one remediation. */
export type RemediationAction =
  /** A fencing run was started for the node. */
  | 'started'
  /** A run is going (this remediation's or another's); nothing was started. */
  | 'waiting'
  /** The node is fenced: Succeeded=True. */
  | 'fenced'
  /** The run ended without fencing, or nothing could be started: Succeeded=False. */
  | 'not-fenced'
  /** Being deleted: the un-fence refused (or waits for a run), the finalizer stays. */
  | 'unfence-refused'
  /** Being deleted: the node was un-fenced, or never fenced; the finalizer is gone. */
  | 'released'
  /** The reconcile of this object failed (API error); it is tried again next time. */
  | 'error';

export interface RemediationOutcome {
  readonly namespace: string;
  readonly name: string;
  readonly node: string;
  readonly action: RemediationAction;
  readonly reason?: string;
  readonly runName?: string;
  readonly error?: string;
}

export interface RemediationReport {
  readonly outcomes: readonly RemediationOutcome[];
  /**
   * Reconcile again within this many seconds even if nothing changes: a run is going, or an un-fence
   * waits for the node. Absent when every remediation is settled.
   */
  readonly requeueAfterSeconds?: number;
}
