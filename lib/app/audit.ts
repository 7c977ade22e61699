import { Phase } from '../domain/phases.js';
import type { FencerDeps } from './deps.js';
import type { StepDecision } from './outcome.js';

const WARNING_PHASES: ReadonlySet<string> = new Set([Phase.Refused, Phase.Failed]);

/**
 * The audit trail of one step (safety.md rule 9): a structured log line always, a Kubernetes Event
 * on the Node for each phase change and each refusal or failure, and metrics.
 */
export async function audit(
  deps: FencerDeps,
  node: string,
  previous: StepDecision | null,
  step: StepDecision,
): Promise<void> {
  const fields = {
    node,
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
  if (phaseChanged || newReason || step.action !== null) {
    const warning = WARNING_PHASES.has(step.phase);
    await deps.cluster.recordNodeEvent(node, {
      type: warning ? 'Warning' : 'Normal',
      reason: `Fencing${step.phase}`,
      message: [step.reason, step.message, step.actionResult].filter(Boolean).join(': ').slice(0, 1000),
      action: step.action ?? (warning ? 'Refuse' : 'Observe'),
    });
  }
  if (step.done) deps.metrics.count('FencingRuns', { outcome: step.outcome });
  if (step.reason !== null && newReason) deps.metrics.count('FencingReasons', { reason: step.reason });
}
