/**
 * The Events a reconcile records on a remediation: one per change of what its conditions say (a run
 * started, the node fenced or not, an un-fence refused or done), never one per reconcile.
 */
import type { Condition, RemediationEvent } from '../../ports/remediations.js';
import { RemediationCondition } from '../../ports/remediations.js';

const find = (conditions: readonly Condition[], type: string): Condition | undefined =>
  conditions.find((c) => c.type === type);

/** Whether a condition now says something it did not say before (status or reason). */
const changed = (before: Condition | undefined, after: Condition | undefined): after is Condition =>
  after !== undefined && (before?.status !== after.status || before?.reason !== after.reason);

/** The Events for going from `before` to `after`; `runStarted` when this reconcile started the run. */
export function remediationEvents(
  before: readonly Condition[],
  after: readonly Condition[],
  context: { readonly node: string; readonly startedRun?: string },
): RemediationEvent[] {
  const events: RemediationEvent[] = [];
  if (context.startedRun) {
    events.push({
      type: 'Normal',
      reason: 'FencingStarted',
      message: `started fencing run ${context.startedRun} for node ${context.node}`,
      action: 'Fence',
    });
  }
  const succeeded = find(after, RemediationCondition.Succeeded);
  if (changed(find(before, RemediationCondition.Succeeded), succeeded) && succeeded.status !== 'Unknown') {
    events.push(
      succeeded.status === 'True'
        ? { type: 'Normal', reason: 'Fenced', message: succeeded.message, action: 'Fence' }
        : {
            type: 'Warning',
            reason: 'NotFenced',
            message: `${succeeded.reason}: ${succeeded.message}`,
            action: 'Refuse',
          },
    );
  }
  const unfenced = find(after, RemediationCondition.Unfenced);
  if (changed(find(before, RemediationCondition.Unfenced), unfenced)) {
    events.push(
      unfenced.status === 'True'
        ? { type: 'Normal', reason: 'Unfenced', message: unfenced.message, action: 'Unfence' }
        : {
            type: 'Warning',
            reason: 'UnfenceRefused',
            message: `${unfenced.reason}: ${unfenced.message}; the finalizer stays until the node is un-fenced`,
            action: 'Unfence',
          },
    );
  }
  return events;
}
