import { setTimeout as sleep } from 'node:timers/promises';
import { isFencerError } from '../../domain/errors.js';
import { conflictAfterRetries, isConflict, toKubernetesApiError } from './errors.js';

/** How often a read-modify-write is tried again after losing a race (HTTP 409). */
export interface ConflictRetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** Upper bound of the first back-off; it doubles each time, with full jitter. */
  readonly baseDelayMs: number;
}

/** Enough for a handful of concurrent fencers and controllers writing the same object. */
export const DEFAULT_CONFLICT_RETRY: ConflictRetryPolicy = { attempts: 8, baseDelayMs: 25 };

/**
 * Runs `attempt` (which must read the object afresh each time) until it does not end in a 409.
 * Jitter keeps concurrent writers from colliding again in lockstep. Anything but a conflict is
 * wrapped into a `KubernetesApiError` (the fencer's own errors pass as they are); running out of attempts is a `ConflictError`.
 */
export async function retryOnConflict<T>(
  operation: string,
  object: string,
  attempt: () => Promise<T>,
  policy: ConflictRetryPolicy = DEFAULT_CONFLICT_RETRY,
): Promise<T> {
  let lastConflict: unknown;
  for (let i = 0; i < policy.attempts; i++) {
    if (i > 0) await sleep(Math.random() * policy.baseDelayMs * 2 ** (i - 1));
    try {
      return await attempt();
    } catch (error) {
      // The fencer's own errors (a corrupt claims annotation, say) already say what went wrong.
      if (isFencerError(error)) throw error;
      if (!isConflict(error)) throw toKubernetesApiError(operation, object, error);
      lastConflict = error;
    }
  }
  throw conflictAfterRetries(operation, object, policy.attempts, lastConflict);
}
