/**
 * Errors of the Ceph RBD adapter: the domain's error classes (whose `name`s Step Functions retries and
 * catches on) with the storage fault code and the Ceph details an operator needs.
 */
import { ProviderApiError, ValidationError } from '../../domain/errors.js';
import { StorageFault } from '../../ports/storage-fencer.js';

/** What {@link CephApiError} records about the failed call. */
export interface CephApiErrorDetails {
  readonly fault: Exclude<StorageFault, typeof StorageFault.NoAddressToFence>;
  /** The mon command's prefix, e.g. `osd blocklist ls`, or the REST call. */
  readonly operation: string;
  /** Whether trying the step again later may succeed (network, timeout, a busy mgr). */
  readonly retryable: boolean;
  readonly httpStatus?: number;
  /** How many requests were made, retries included. */
  readonly attempts?: number;
  /** Ceph's own words (`outs`), when it answered. */
  readonly cephMessage?: string;
}

/**
 * A call to the ceph-mgr `restful` API that failed, or an answer that is not evidence. Never proof of
 * anything: a caller must not read "fenced" (or "not fenced") into it.
 */
export class CephApiError extends ProviderApiError {
  readonly fault: CephApiErrorDetails['fault'];
  readonly retryable: boolean;
  readonly httpStatus: number | undefined;
  readonly attempts: number | undefined;
  readonly cephMessage: string | undefined;

  constructor(details: CephApiErrorDetails, message: string, options?: ErrorOptions) {
    super(`Ceph ${details.operation}: ${details.fault}: ${message}`, {
      operation: details.operation,
      cause: options?.cause,
    });
    this.fault = details.fault;
    this.retryable = details.retryable;
    this.httpStatus = details.httpStatus;
    this.attempts = details.attempts;
    this.cephMessage = details.cephMessage;
  }
}

/** Bad input or configuration for the Ceph fencer; nothing was sent to Ceph. */
export class CephInputError extends ValidationError {}

/** The node has neither an InternalIP nor a configured range: there is nothing to blocklist it by. */
export class NoAddressToFenceError extends ValidationError {
  readonly fault = StorageFault.NoAddressToFence;
  readonly node: string;

  constructor(node: string) {
    super(
      `node ${node} has no address to fence: no InternalIP in status.addresses and no configured storage range`,
    );
    this.node = node;
  }
}
