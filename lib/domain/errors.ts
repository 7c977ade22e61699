/**
 * The fencer's error classes. Their `name`s are a contract: Step Functions `Retry`/`Catch` match on them,
 * so each class has a literal name from {@link ErrorName} and keeps the original error as `cause`.
 * Expected states ("already off", "not applicable") are values, never errors.
 */
import type { Reason } from './reasons.js';

/** The names Step Functions retries and catches on. */
export const ErrorName = {
  Validation: 'ValidationError',
  ProviderId: 'ProviderIdError',
  ProviderApi: 'ProviderApiError',
  KubernetesApi: 'KubernetesApiError',
  Refused: 'RefusedError',
  Conflict: 'ConflictError',
} as const;
export type ErrorName = (typeof ErrorName)[keyof typeof ErrorName];

/** Errors worth retrying as they are: the next attempt observes the world afresh. */
export const RETRYABLE_ERROR_NAMES: readonly ErrorName[] = [
  ErrorName.ProviderApi,
  ErrorName.KubernetesApi,
  ErrorName.Conflict,
];

/**
 * Whether a failed step is worth retrying as it is: an error of a retryable kind, unless the API server
 * refused the fencer's identity (HTTP 401, 403), which no retry changes (a missing RBAC right, a revoked
 * token): the run ends at once with that error instead of retrying it until its deadline.
 */
export const isRetryableError = (error: unknown): boolean => {
  const e = error as { readonly name?: unknown; readonly statusCode?: unknown } | null | undefined;
  if (!RETRYABLE_ERROR_NAMES.includes(e?.name as ErrorName)) return false;
  return !(e?.name === ErrorName.KubernetesApi && (e.statusCode === 401 || e.statusCode === 403));
};

/** Options every fencer error accepts. */
export interface FencerErrorOptions {
  readonly cause?: unknown;
}

/** The common base, so callers can tell the fencer's errors from everything else. */
export abstract class FencerError extends Error {
  abstract override readonly name: ErrorName;

  constructor(message: string, options: FencerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** Input that does not satisfy the contract: malformed events, requests or observations (SAFETY.md rule 10). */
export class ValidationError extends FencerError {
  override readonly name = ErrorName.Validation;
}

/** What is wrong with a providerID. */
export type ProviderIdProblem = 'missing' | 'unparseable' | 'unknown-provider';

/** A node's `spec.providerID` is missing, malformed, or belongs to a provider we do not handle. */
export class ProviderIdError extends FencerError {
  override readonly name = ErrorName.ProviderId;
  readonly providerId: string | undefined;
  readonly problem: ProviderIdProblem;

  constructor(
    message: string,
    options: FencerErrorOptions & { readonly providerId?: string; readonly problem?: ProviderIdProblem } = {},
  ) {
    super(message, options);
    this.providerId = options.providerId;
    this.problem = options.problem ?? (options.providerId ? 'unparseable' : 'missing');
  }
}

/** A cloud or storage provider call failed (throttled, denied, timed out, 5xx). */
export class ProviderApiError extends FencerError {
  override readonly name = ErrorName.ProviderApi;
  /** The provider operation, e.g. `DescribeInstances`. */
  readonly operation: string | undefined;
  /** The provider refused for load (throttling): the run backs off and says so (`ProviderThrottled`). */
  readonly throttled: boolean;

  constructor(
    message: string,
    options: FencerErrorOptions & { readonly operation?: string; readonly throttled?: boolean } = {},
  ) {
    super(message, options);
    this.operation = options.operation;
    this.throttled = options.throttled === true;
  }
}

/** A Kubernetes API call failed for a reason other than a resourceVersion conflict. */
export class KubernetesApiError extends FencerError {
  override readonly name = ErrorName.KubernetesApi;
  /** HTTP status code when the API server answered. */
  readonly statusCode: number | undefined;

  constructor(message: string, options: FencerErrorOptions & { readonly statusCode?: number } = {}) {
    super(message, options);
    this.statusCode = options.statusCode;
  }
}

/** A read-modify-write lost a race (HTTP 409 on `resourceVersion`); the step is retried from a fresh observation. */
export class ConflictError extends FencerError {
  override readonly name = ErrorName.Conflict;
}

/** A run was refused by a safety or policy rule; carries the stable reason code (SAFETY.md rule 9). */
export class RefusedError extends FencerError {
  override readonly name = ErrorName.Refused;
  readonly reason: Reason;

  constructor(reason: Reason, message: string, options: FencerErrorOptions = {}) {
    super(message, options);
    this.reason = reason;
  }
}

/** Whether a value is one of the fencer's own errors. */
export const isFencerError = (value: unknown): value is FencerError => value instanceof FencerError;
