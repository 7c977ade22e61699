import { Phase } from '../../domain/phases.js';
import { Reason } from '../../domain/reasons.js';
import type { FencerDeps } from '../shared/deps.js';
import type { StepDecision } from './outcome.js';

const WARNING_PHASES: ReadonlySet<string> = new Set([Phase.Refused, Phase.Failed]);

/** Where the audit may write: a dry run, or a node that does not exist, gets no Event (SAFETY.md rules 8 and 10). */
export interface AuditScope {
  readonly node: string;
  /** Events may be written on the node: not a dry run, and the node exists. */
  readonly writeEvents: boolean;
}

/**
 * The audit trail of one step (SAFETY.md rule 9): a structured log line always, a Kubernetes Event
 * on the Node for each phase change and each refusal or failure (unless the scope forbids writing),
 * and metrics.
 */
export async function audit(
  deps: FencerDeps,
  scope: AuditScope,
  previous: StepDecision | null,
  step: StepDecision,
): Promise<void> {
  const fields = {
    node: scope.node,
    phase: step.phase,
    outcome: step.outcome,
    reason: step.reason,
    rule: step.rule,
    action: step.action,
    actionResult: step.actionResult,
    waitSeconds: step.waitSeconds,
    evidence: step.evidence,
    tookMs: step.tookMs,
  };
  if (WARNING_PHASES.has(step.phase)) deps.log.warn(step.message, fields);
  else deps.log.info(step.message, fields);

  const phaseChanged = previous?.phase !== step.phase;
  const newReason = step.reason !== null && previous?.reason !== step.reason;
  if (scope.writeEvents && (phaseChanged || newReason || step.action !== null)) {
    const warning = WARNING_PHASES.has(step.phase);
    await deps.cluster.recordNodeEvent(scope.node, {
      type: warning ? 'Warning' : 'Normal',
      reason: `Fencing${step.phase}`,
      message: [step.reason, step.message, step.actionResult].filter(Boolean).join(': ').slice(0, 1000),
      action: step.action ?? (warning ? 'Refuse' : 'Observe'),
    });
  }
  if (step.done) deps.metrics.count('FencingRuns', { outcome: step.outcome });
  if (step.reason !== null && newReason) deps.metrics.count('FencingReasons', { reason: step.reason });
}

/**
 * The audit trail of a step that threw before it could decide or record (SAFETY.md rule 9): logged
 * with its error name, counted, and an Event `FencingError` on the node when it exists and the run
 * may write. Best effort: the original error is what the caller rethrows.
 */
export async function auditError(
  deps: FencerDeps,
  node: string,
  mayWrite: boolean,
  error: unknown,
): Promise<void> {
  const e = error as Error;
  const name = e?.name ?? 'Error';
  const message = e?.message ?? String(error);
  deps.log.error('step failed before it could decide', {
    node,
    reason: Reason.StepError,
    error: name,
    message,
  });
  deps.metrics.count('FencingErrors', { error: name });
  if (!mayWrite) return;
  try {
    if ((await deps.cluster.getNode(node)) === null) return;
    await deps.cluster.recordNodeEvent(node, {
      type: 'Warning',
      reason: 'FencingError',
      message: `${Reason.StepError}: ${name}: ${message}`.slice(0, 1000),
      action: 'Observe',
    });
  } catch (eventError) {
    deps.log.warn('could not record the step failure on the node', {
      node,
      error: (eventError as Error)?.name,
    });
  }
}

/** Where and how long a run that timed out ran. */
export interface TimeoutScope {
  readonly node: string;
  /** Events may be written: not a dry run. The node must also still exist. */
  readonly mayWrite: boolean;
  readonly timeoutSeconds: number;
}

/**
 * The audit trail of a run that gave up at its timeout before deciding an end (SAFETY.md rule 9): a
 * failure like any other, so it is logged, counted as a failed run, and left on the node as a Warning
 * Event that names where it stood and what last went wrong (the step's reason, or the error that kept
 * the step from deciding, such as a throttled provider).
 */
export async function auditTimeout(
  deps: FencerDeps,
  scope: TimeoutScope,
  last: StepDecision | null,
  lastError: Error | undefined,
): Promise<void> {
  const where = last ? `in phase ${last.phase}` : 'before any step decided';
  const why = lastError
    ? `the last step failed: ${lastError.name}: ${lastError.message}`
    : last?.reason
      ? `last: ${last.reason}: ${last.message}`
      : '';
  const message = `Timeout: gave up after ${scope.timeoutSeconds} s ${where}${why ? `; ${why}` : ''}`;
  deps.log.error(message, {
    node: scope.node,
    reason: 'Timeout',
    phase: last?.phase,
    error: lastError?.name,
  });
  deps.metrics.count('FencingRuns', { outcome: 'failed' });
  if (!scope.mayWrite) return;
  try {
    if ((await deps.cluster.getNode(scope.node)) === null) return;
    await deps.cluster.recordNodeEvent(scope.node, {
      type: 'Warning',
      reason: 'FencingTimedOut',
      message: message.slice(0, 1000),
      action: 'Observe',
    });
  } catch (eventError) {
    deps.log.warn('could not record the timeout on the node', {
      node: scope.node,
      error: (eventError as Error)?.name,
    });
  }
}
