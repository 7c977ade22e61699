/**
 * What an error thrown by the ECS SDK means to the fencer. The SDK (openapi-core) turns every HTTP
 * answer >= 400 into a `ClientError` (4xx), `ServerError` (5xx) or `ThrottlingError` (any code containing
 * "Throttling", whatever the status), each with `code`, `statusCode`, `requestId` and `data`; transport
 * failures are plain errors with a Node.js `code` (ECONNRESET) or httpx's name (`ReadTimeout`).
 */
import { ProviderApiError } from './errors.js';

/** ECS's answer for an instance id it does not know, from a call about that one instance. */
export const INSTANCE_NOT_FOUND = 'InvalidInstanceId.NotFound';

/** Codes that mean "not now": the next attempt (or the next step of the loop) may succeed. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'ServiceUnavailable',
  'InternalError',
  'UnknownError',
  'IncorrectInstanceStatus.Initializing',
  'OperationConflict',
  'LastTokenProcessing',
]);

/** Transport failures worth another attempt (the request may never have reached ECS, or its answer was lost). */
const TRANSIENT_TRANSPORT: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ReadTimeout',
  'ConnectTimeout',
  'RequestTimeout',
]);

interface SdkErrorShape {
  readonly name?: string;
  readonly message?: string;
  readonly code?: string | number;
  readonly statusCode?: number;
  readonly requestId?: string;
  readonly retryAfter?: number;
}

const shapeOf = (error: unknown): SdkErrorShape =>
  typeof error === 'object' && error !== null ? (error as SdkErrorShape) : {};

/** The ECS error code of an SDK error (its `code`), a transport code, or the error's name. */
export const errorCode = (error: unknown): string => {
  const { code, name, message } = shapeOf(error);
  if (code !== undefined && code !== '' && code !== 'undefined') return String(code);
  // httpx names its timeouts in the message ("ReadTimeout(10000)") rather than in a code.
  const timeout = /\b(ReadTimeout|ConnectTimeout)\b/.exec(message ?? '')?.[1];
  return timeout ?? name ?? 'UnknownError';
};

/** Whether ECS throttled the call: the SDK's rule (any code containing "Throttling"). */
export const isThrottled = (error: unknown): boolean =>
  shapeOf(error).name === 'ThrottlingError' || errorCode(error).includes('Throttling');

/** ECS codes that mean the credentials, not the request, are wrong: a wrong secret, a bad signature, an expired token. */
const CREDENTIAL_CODES: ReadonlySet<string> = new Set([
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'InvalidAccessKeyId',
  'InvalidAccessKeyId.NotFound',
  'InvalidAccessKeyId.Inactive',
  'InvalidSecurityToken.Expired',
  'InvalidSecurityToken.Malformed',
  'InvalidSecurityToken.MismatchWithAccessKey',
  'InvalidTimeStamp.Expired',
]);

/** Whether ECS rejected the fencer's credentials. */
export const isCredentialError = (error: unknown): boolean => CREDENTIAL_CODES.has(errorCode(error));

/** Whether the same call may succeed if made again: throttling, 5xx, transient codes, lost connections. */
export const isRetryable = (error: unknown): boolean => {
  if (isCredentialError(error)) return false;
  if (isThrottled(error)) return true;
  const code = errorCode(error);
  if (TRANSIENT_CODES.has(code) || TRANSIENT_TRANSPORT.has(code)) return true;
  const status = shapeOf(error).statusCode;
  return status !== undefined && status >= 500;
};

/** How long ECS asked the client to wait (`x-acs-retry-after`, milliseconds), when it said. */
export const retryAfterMs = (error: unknown): number | undefined => {
  const value = shapeOf(error).retryAfter;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
};

/** ECS's message without the SDK's "<code>: code: 400, … request id: …" wrapping. */
const messageOf = (error: unknown): string => {
  const { message, code } = shapeOf(error);
  let text = message ?? String(error);
  if (code !== undefined && text.startsWith(`${code}: `)) text = text.slice(`${code}: `.length);
  return text.replace(/^code: \d+, /, '').replace(/ request id: \S*$/, '');
};

/** Wraps what an ECS call threw, once the adapter stopped retrying, into a {@link ProviderApiError}. */
export const toProviderApiError = (
  operation: string,
  instanceId: string | undefined,
  error: unknown,
  attempts?: number,
): ProviderApiError => {
  const shape = shapeOf(error);
  return new ProviderApiError(
    {
      operation,
      code: errorCode(error),
      instanceId,
      httpStatus: shape.statusCode,
      requestId: shape.requestId && shape.requestId !== 'undefined' ? shape.requestId : undefined,
      attempts,
      retryable: isRetryable(error),
      credentials: isCredentialError(error),
      throttled: isThrottled(error),
    },
    messageOf(error),
    { cause: error },
  );
};
