/**
 * Every wait in a fence run is bounded. Which deadline applies depends on where the run stands; past it,
 * a wait becomes a failure with a reason, so no run loops forever on a provider that never answers.
 */
import { halt, type Outcome, wait } from '../decision.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { instant, isoAt } from '../time.js';
import type { FenceContext } from './context.js';

interface Deadline {
  readonly at: number;
  /** The reason a run that passes it fails with. */
  readonly reason: Reason;
}

/**
 * - before committing: the provider has `powerOffDeadlineSeconds` from the start of the run to answer;
 * - committed, no proof: the instance has `powerOffDeadlineSeconds` from the decision to be reported off;
 * - proof held: the node has `drainDeadlineSeconds` from the taint (or the proof) to clear.
 */
export function deadlineOf(ctx: FenceContext): Deadline {
  const { limits } = ctx.request;
  if (ctx.proof !== null) {
    const from = ctx.history.taintedAt ?? ctx.proof.observedAt;
    return {
      at: instant(from, 'taintedAt') + limits.drainDeadlineSeconds * 1000,
      reason: Reason.DrainNotComplete,
    };
  }
  if (ctx.decidedAt !== null) {
    return { at: ctx.decidedAt + limits.powerOffDeadlineSeconds * 1000, reason: Reason.PowerOffNotConfirmed };
  }
  const started = instant(ctx.history.startedAt, 'startedAt');
  return { at: started + limits.powerOffDeadlineSeconds * 1000, reason: Reason.ProviderApiError };
}

/**
 * A failure when the current deadline has passed, else `null`. Before the commitment the deadline is
 * the provider's to answer by; when the step knows why it did not (`cause`, e.g. throttling), the
 * failure names that.
 */
export function expired(
  ctx: FenceContext,
  evidence: readonly string[] = [],
  cause: Reason | null = null,
): Outcome | null {
  const deadline = deadlineOf(ctx);
  if (ctx.now <= deadline.at) return null;
  const reason = deadline.reason === Reason.ProviderApiError && cause !== null ? cause : deadline.reason;
  return halt(Phase.Failed, reason, [...evidence, `deadline was ${isoAt(deadline.at)}`]);
}

/** Wait and look again, unless the deadline has passed. */
export const waitOrExpire = (
  ctx: FenceContext,
  phase: Phase,
  waitSeconds: number,
  message: string,
  evidence: readonly string[] = [],
  reason: Reason | null = null,
): Outcome =>
  expired(ctx, [message, ...evidence], reason) ?? wait(phase, waitSeconds, message, evidence, reason);
