/**
 * Writing what a reconcile found on the remediation: its status (conditions, the node's fence record,
 * the run's name and last reason), only when that changed, and an Event for each change of what the
 * conditions say.
 */
import { canonicalJson } from '../../domain/canonical-json.js';
import {
  RemediationCondition,
  type RemediationObject,
  type RemediationStatus,
} from '../../ports/remediations.js';
import {
  type NodeFence,
  type RunProgress,
  remediationConditions,
  type UnfenceProgress,
} from './conditions.js';
import type { RemediationAction, RemediationDeps } from './deps.js';
import { remediationEvents } from './events.js';
import { fenceRecordStatus } from './node-fence.js';

export interface WriteInput {
  readonly node: string;
  readonly progress: RunProgress | null;
  readonly fence: NodeFence;
  /** Only for a remediation being deleted; null: no un-fence attempted now. */
  readonly unfence?: UnfenceProgress | null;
  readonly runName?: string;
  /** The run this reconcile started. */
  readonly startedRun?: string;
  readonly unfenceAttempt?: RemediationStatus['unfenceAttempt'];
}

/** What was written, for the reconcile's report. */
export interface Written {
  readonly status: RemediationStatus;
  readonly deleting: boolean;
  readonly startedRun?: string;
  /** Being deleted: the finalizer was removed. */
  readonly released?: boolean;
}

/** The status without its update time, to tell whether anything changed. */
const essence = (status: RemediationStatus | null): string => {
  if (status === null) return '';
  const { lastUpdateTime: _, ...rest } = status;
  return canonicalJson(rest);
};

/** RFC 3339 to the second, as metav1.Time is stored. */
const wholeSeconds = (at: Date): string => `${at.toISOString().slice(0, 19)}Z`;

export async function writeRemediation(
  deps: RemediationDeps,
  object: RemediationObject,
  previous: RemediationStatus | null,
  input: WriteInput,
): Promise<Written> {
  const now = wholeSeconds(deps.fencer.clock.now());
  const before = previous?.conditions ?? [];
  const facts = {
    progress: input.progress,
    fence: input.fence,
    ...('unfence' in input ? { unfence: input.unfence } : {}),
  };
  const { conditions, lastReason } = remediationConditions(facts, before, now, object.generation);
  const fence = fenceRecordStatus(input.fence);
  const status: RemediationStatus = {
    conditions,
    node: input.node,
    ...(input.runName ? { runName: input.runName } : {}),
    ...(lastReason ? { lastReason } : {}),
    ...(fence ? { fence } : {}),
    ...(input.unfenceAttempt ? { unfenceAttempt: input.unfenceAttempt } : {}),
    lastUpdateTime: now,
  };
  if (essence(previous) !== essence(status)) await deps.remediations.writeStatus(object, status);
  const context = { node: input.node, ...(input.startedRun ? { startedRun: input.startedRun } : {}) };
  for (const event of remediationEvents(before, conditions, context)) {
    await deps.remediations.recordEvent(object, event);
  }
  return { status, deleting: object.deleting, ...(input.startedRun ? { startedRun: input.startedRun } : {}) };
}

/** What a reconcile did, from what it wrote. */
export function actionOf(written: Written): RemediationAction {
  if (written.deleting) return written.released ? 'released' : 'unfence-refused';
  if (written.startedRun) return 'started';
  const succeeded = written.status.conditions.find((c) => c.type === RemediationCondition.Succeeded);
  if (succeeded?.status === 'True') return 'fenced';
  if (succeeded?.status === 'False') return 'not-fenced';
  return 'waiting';
}
