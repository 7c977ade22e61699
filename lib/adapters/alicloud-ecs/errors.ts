/**
 * Errors of the Alibaba Cloud ECS adapter: the domain's error classes (whose `name`s Step Functions and
 * the CLI loop retry and catch on) with the ECS details an operator needs: the error code, the HTTP
 * status and ECS's RequestId, which Alibaba's support asks for first.
 */
import { ProviderApiError as DomainProviderApiError, ValidationError } from '../../domain/errors.js';

/** A providerID this adapter cannot use: one class for every compute adapter, so their refusals read alike. */
export { ProviderIdError } from '../shared/provider-id-error.js';

/** What {@link ProviderApiError} records about the failed call. */
export interface ProviderApiErrorDetails {
  /** The ECS API operation, e.g. `DescribeInstances`. */
  readonly operation: string;
  /** ECS's error code (e.g. `Throttling.User`), or the transport's (e.g. `ECONNRESET`). */
  readonly code: string;
  readonly instanceId?: string;
  readonly httpStatus?: number;
  /** ECS's RequestId of the last attempt, when ECS answered. */
  readonly requestId?: string;
  /** How many requests were made, retries included. */
  readonly attempts?: number;
  /** Whether trying the step again later may succeed (throttling, 5xx, network, state races). */
  readonly retryable: boolean;
  /**
   * The provider rejected the fencer's credentials (a wrong secret, a bad signature, an expired token).
   * @default false
   */
  readonly credentials?: boolean;
  /** ECS throttled the call: its last answer was a `Throttling*` code. */
  readonly throttled: boolean;
}

/**
 * An ECS call that failed after the adapter's retries. Never evidence of anything: a caller must not
 * read "off" (or "on") into it.
 */
export class ProviderApiError extends DomainProviderApiError {
  override readonly operation: string;
  readonly code: string;
  readonly instanceId: string | undefined;
  readonly httpStatus: number | undefined;
  readonly requestId: string | undefined;
  readonly attempts: number | undefined;
  readonly retryable: boolean;
  /** The credentials, not the request, are wrong: the CLI exits 7, and the run ends at once. */
  readonly credentials: boolean;

  constructor(details: ProviderApiErrorDetails, message: string, options?: ErrorOptions) {
    const target = details.instanceId ? ` for ${details.instanceId}` : '';
    const attempts = details.attempts && details.attempts > 1 ? ` after ${details.attempts} attempts` : '';
    super(`ECS ${details.operation}${target} failed${attempts}: ${details.code}: ${message}`, {
      operation: details.operation,
      throttled: details.throttled,
      cause: options?.cause,
    });
    this.operation = details.operation;
    this.code = details.code;
    this.instanceId = details.instanceId;
    this.httpStatus = details.httpStatus;
    this.requestId = details.requestId;
    this.attempts = details.attempts;
    this.retryable = details.retryable;
    this.credentials = details.credentials === true;
  }
}

/**
 * An instance outside the region the fencer serves (its providerID names another region, or ECS puts it
 * in another zone). Asking the wrong region about an instance answers "not found", which must never be
 * read as proof that it is off.
 */
export class RegionMismatchError extends ValidationError {
  readonly instanceId: string;
  /** The fencer's configured region. */
  readonly region: string;

  constructor(instanceId: string, mismatch: string, region: string) {
    super(`instance ${instanceId}: ${mismatch}, but this fencer serves region ${region}`);
    this.instanceId = instanceId;
    this.region = region;
  }
}

/** Credentials or settings of the ECS client that cannot work (missing key, a secret without its id). */
export class EcsConfigError extends ValidationError {}
