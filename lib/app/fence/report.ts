import type { BlocklistEvidence } from '../../domain/blocklist.js';
import type { RunHistory } from '../../domain/history.js';
import type { PowerEvidence } from '../../domain/instance.js';
import { Phase } from '../../domain/phases.js';
import type { Reason } from '../../domain/reasons.js';
import type { FenceRequest, UnfenceRequest } from '../../domain/request.js';
import { RunOutcome, type StepDecision } from './outcome.js';

/** The final report of a run: what happened, on what evidence, and how long each part took. */
export interface RunReport {
  readonly kind: 'fence' | 'unfence';
  readonly runId: string;
  readonly node: string;
  readonly cluster: string;
  readonly dryRun: boolean;
  readonly outcome: RunOutcome;
  readonly phase: Phase;
  /** Stable reason code of a refusal, failure or final wait; `Timeout` when the run ran out of time. */
  readonly reason: Reason | 'Timeout' | null;
  readonly message: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationSeconds: number;
  readonly proofOfOff: PowerEvidence | null;
  /** The node's blocklist as confirmed after the decision, for a node fenced at the storage layer. */
  readonly storageProof: BlocklistEvidence | null;
  /** The evidence of the last step. */
  readonly evidence: readonly string[];
  readonly milestones: {
    readonly decidedToFenceAt: string | null;
    readonly powerOffRequestedAt: string | null;
    readonly provenOffAt: string | null;
    readonly storageFenceRequestedAt: string | null;
    readonly blocklistConfirmedAt: string | null;
    readonly taintedAt: string | null;
    readonly finishedAt: string;
  };
  /** Seconds between milestones; null where a milestone was not reached. */
  readonly timings: {
    /** To the last proof the plan needed (the machine off, the blocklist confirmed). */
    readonly decisionToProofSeconds: number | null;
    readonly proofToTaintSeconds: number | null;
    readonly taintToReleasedSeconds: number | null;
  };
  readonly steps: readonly StepDecision[];
  /**
   * What still blocks the released volumes after a completed fence (the replacement cannot attach,
   * or is not attached yet): reported separately, because the fence itself is done.
   */
  readonly downstream: readonly string[];
}

const seconds = (from: string | null | undefined, to: string | null | undefined): number | null =>
  from && to ? Math.round((Date.parse(to) - Date.parse(from)) / 100) / 10 : null;

export function buildReport(input: {
  readonly kind: 'fence' | 'unfence';
  readonly request: FenceRequest | UnfenceRequest;
  readonly history: RunHistory;
  readonly steps: readonly StepDecision[];
  readonly timedOut: boolean;
  readonly finishedAt: Date;
}): RunReport {
  const { history, request, steps } = input;
  const last = steps.at(-1);
  const finishedAt = input.finishedAt.toISOString();
  const provenOffAt = history.proofOfOff?.observedAt ?? null;
  const blocklistConfirmedAt = history.storageProof?.observedAt ?? null;
  // The release waits for every proof: the later of the two is when it could start.
  const provenAt =
    [provenOffAt, blocklistConfirmedAt]
      .filter((x) => x !== null)
      .sort()
      .at(-1) ?? null;
  const released = last?.phase === Phase.Fenced ? last.at : null;
  return {
    kind: input.kind,
    runId: history.runId,
    node: request.node,
    cluster: request.cluster,
    dryRun: request.dryRun,
    outcome: input.timedOut ? RunOutcome.Failed : (last?.outcome ?? RunOutcome.Failed),
    phase: last?.phase ?? Phase.Assess,
    reason: input.timedOut ? 'Timeout' : (last?.reason ?? null),
    message: input.timedOut
      ? `Timed out in phase ${last?.phase ?? Phase.Assess}: ${last?.message ?? 'no step completed'}`
      : (last?.message ?? 'no step completed'),
    startedAt: history.startedAt,
    finishedAt,
    durationSeconds: seconds(history.startedAt, finishedAt) ?? 0,
    proofOfOff: history.proofOfOff,
    storageProof: history.storageProof,
    evidence: last?.evidence ?? [],
    milestones: {
      decidedToFenceAt: history.decidedToFenceAt,
      powerOffRequestedAt: history.powerOffRequestedAt,
      provenOffAt,
      storageFenceRequestedAt: history.storageFenceRequestedAt,
      blocklistConfirmedAt,
      taintedAt: history.taintedAt,
      finishedAt,
    },
    timings: {
      decisionToProofSeconds: seconds(history.decidedToFenceAt, provenAt),
      proofToTaintSeconds: seconds(provenAt, history.taintedAt),
      taintToReleasedSeconds: seconds(history.taintedAt, released),
    },
    steps,
    downstream: [],
  };
}
