/**
 * Errors of the Kubernetes adapter. The classes are the domain's, so their `name`s (the contract
 * Step Functions retries and catches on) are defined once, in `lib/domain/errors.ts`; this module
 * turns what the API client throws into them.
 */
import { ConflictError, KubernetesApiError } from '../../domain/errors.js';

export { ConflictError, KubernetesApiError };

const isHttpStatus = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;

/**
 * The HTTP status of a failed call: the `statusCode` of an `ApiStatusError` (or of an error made to
 * look like one). Other errors carry numeric `code`s too (a DOMException's), so only `statusCode`
 * counts, and only in the HTTP range.
 */
export const statusOf = (error: unknown): number | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  const { statusCode } = error as { statusCode?: unknown };
  return isHttpStatus(statusCode) ? statusCode : undefined;
};

/** The object does not exist (any more). */
export const isNotFound = (error: unknown): boolean => statusOf(error) === 404;

/**
 * 409: a resourceVersion or UID precondition failed, or a create raced another. The callers decide
 * which of these it is from the operation they made.
 */
export const isConflict = (error: unknown): boolean => statusOf(error) === 409;

/** The API server's own sentence, from the `Status` body of an `ApiStatusError`, else the error's message. */
export const serverMessage = (error: unknown): string => {
  if (typeof error !== 'object' || error === null) return String(error);
  const { body, message } = error as { body?: unknown; message?: unknown };
  const parsed = typeof body === 'string' ? parseJson(body) : body;
  if (typeof parsed === 'object' && parsed !== null) {
    const status = parsed as { message?: unknown };
    if (typeof status.message === 'string' && status.message !== '') return status.message;
  }
  return typeof message === 'string' ? (message.split('\n')[0] ?? message) : String(error);
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * Wraps a failed call into a {@link KubernetesApiError} naming the operation and the object, e.g.
 * `Kubernetes patchNode node/node-b failed (HTTP 403): nodes "node-b" is forbidden: ...`.
 */
export const toKubernetesApiError = (
  operation: string,
  object: string,
  error: unknown,
): KubernetesApiError => {
  if (error instanceof KubernetesApiError) return error;
  const statusCode = statusOf(error);
  const status = statusCode === undefined ? '' : ` (HTTP ${statusCode})`;
  return new KubernetesApiError(
    `Kubernetes ${operation} ${object} failed${status}: ${serverMessage(error)}`,
    { cause: error, statusCode },
  );
};

/** The error for a read-modify-write that kept losing races: the step is retried from a fresh observation. */
export const conflictAfterRetries = (
  operation: string,
  object: string,
  attempts: number,
  error: unknown,
): ConflictError =>
  new ConflictError(
    `Kubernetes ${operation} ${object}: still conflicting after ${attempts} attempts (another writer keeps changing it)`,
    { cause: error },
  );
