import { setTimeout as sleep } from 'node:timers/promises';
import type { ProviderApiError } from './errors.js';
import { isRetryable, retryAfterMs, toProviderApiError } from './sdk-errors.js';

/**
 * How the adapter retries ECS calls. The SDK makes exactly one attempt per call unless told otherwise,
 * and its own retry options know nothing of the step's AbortSignal, so the adapter retries itself:
 * exponential backoff with full jitter, ECS's `x-acs-retry-after` when it gives one, and never past
 * the step's budget.
 */
export interface EcsRetryPolicy {
  /** Attempts per call, the first included. @default 4 */
  readonly maxAttempts: number;
  /** The first backoff's ceiling, doubled per attempt. @default 200 */
  readonly baseDelayMs: number;
  /** No backoff is longer, whatever ECS asks for. @default 3000 */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: EcsRetryPolicy = { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 3000 };

/** What {@link callEcs} needs besides the call. */
export interface CallOptions {
  readonly operation: string;
  readonly instanceId?: string;
  readonly signal?: AbortSignal;
  readonly policy?: EcsRetryPolicy;
  /** Whether an error is final without being wrapped (e.g. a not-found that the caller reads as proof). */
  readonly passThrough?: (error: unknown) => boolean;
}

const abortedError = (signal: AbortSignal): Error =>
  Object.assign(new Error(`the step's budget ran out (${String(signal.reason ?? 'aborted')})`), {
    name: 'AbortError',
    code: 'StepBudgetExhausted',
  });

/** Resolves with the call, or rejects as soon as the signal aborts (the HTTP request is left to time out). */
function raceSignal<T>(call: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return call;
  if (signal.aborted) return Promise.reject(abortedError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    call.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

const backoffMs = (policy: EcsRetryPolicy, attempt: number, error: unknown): number => {
  const asked = retryAfterMs(error);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.min(policy.maxDelayMs, asked ?? Math.random() * ceiling);
};

/**
 * Makes an ECS call, again after a retryable failure, until it succeeds, fails for good, runs out of
 * attempts or the signal aborts. Failures come out as {@link ProviderApiError} (with the attempts made),
 * except those `passThrough` keeps for the caller to read.
 */
export async function callEcs<T>(call: () => Promise<T>, options: CallOptions): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  let attempt = 0;
  for (;;) {
    attempt++;
    try {
      return await raceSignal(call(), options.signal);
    } catch (error) {
      if (options.passThrough?.(error)) throw error;
      const aborted = options.signal?.aborted === true;
      if (aborted || attempt >= policy.maxAttempts || !isRetryable(error)) {
        throw wrap(options, error, attempt);
      }
      try {
        await sleep(backoffMs(policy, attempt, error), undefined, { signal: options.signal });
      } catch {
        throw wrap(options, abortedError(options.signal as AbortSignal), attempt);
      }
    }
  }
}

const wrap = (options: CallOptions, error: unknown, attempts: number): ProviderApiError =>
  toProviderApiError(options.operation, options.instanceId, error, attempts);
