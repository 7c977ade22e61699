/**
 * Errors of the AWS EC2 adapter: the domain's error classes (whose `name`s Step Functions retries
 * and catches on) with the EC2 details an operator needs.
 */
import { ProviderApiError as DomainProviderApiError, ValidationError } from '../../domain/errors.js';

/** A providerID this adapter cannot use: one class for every compute adapter, so their refusals read alike. */
export { ProviderIdError } from '../shared/provider-id-error.js';

/** What {@link ProviderApiError} records about the failed call. */
export interface ProviderApiErrorDetails {
  /** The EC2 API operation, e.g. `DescribeInstances`. */
  readonly operation: string;
  /** The provider's error code (e.g. `RequestLimitExceeded`), or the SDK error name. */
  readonly code: string;
  readonly instanceId?: string;
  readonly httpStatus?: number;
  /** How many requests the SDK made, retries included. */
  readonly attempts?: number;
  /** Whether trying the step again later may succeed (throttling, 5xx, network, state races). */
  readonly retryable: boolean;
  /**
   * The provider rejected the fencer's credentials (a wrong secret, a bad signature, an expired token).
   * @default false
   */
  readonly credentials?: boolean;
  /** EC2 refused for load (RequestLimitExceeded and the like). */
  readonly throttled?: boolean;
}

/**
 * An EC2 call that failed after the SDK's own retries. Never evidence of anything: a caller must
 * not read "off" (or "on") into it.
 */
export class ProviderApiError extends DomainProviderApiError {
  override readonly operation: string;
  readonly code: string;
  readonly instanceId: string | undefined;
  readonly httpStatus: number | undefined;
  readonly attempts: number | undefined;
  readonly retryable: boolean;
  /** The credentials, not the request, are wrong: the CLI exits 7, and the run ends at once. */
  readonly credentials: boolean;

  constructor(details: ProviderApiErrorDetails, message: string, options?: ErrorOptions) {
    super(
      `EC2 ${details.operation}${details.instanceId ? ` for ${details.instanceId}` : ''} failed: ${details.code}: ${message}`,
      { operation: details.operation, cause: options?.cause, throttled: details.throttled },
    );
    this.operation = details.operation;
    this.code = details.code;
    this.instanceId = details.instanceId;
    this.httpStatus = details.httpStatus;
    this.attempts = details.attempts;
    this.retryable = details.retryable;
    this.credentials = details.credentials === true;
  }
}

/**
 * An instance outside the region the fencer's client talks to (by its providerID zone, or because
 * the client is configured for another region). Asking the wrong region about an instance answers
 * "not found", which must never be read as proof that it is off.
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
