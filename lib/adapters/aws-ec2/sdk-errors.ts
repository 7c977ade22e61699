import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { ProviderApiError } from './errors.js';

/** Error codes EC2 uses for an instance id it does not know: proof the machine is gone. */
export const INSTANCE_NOT_FOUND = 'InvalidInstanceID.NotFound';

/**
 * Codes that only mean "not now": the instance is between states (e.g. stopping a `pending`
 * instance), so the next step of the loop may succeed.
 */
const STATE_RACE_CODES: ReadonlySet<string> = new Set(['IncorrectInstanceState', 'IncorrectState']);

interface SdkErrorShape {
  readonly name?: string;
  readonly message?: string;
  readonly Code?: string;
  readonly $metadata?: { readonly httpStatusCode?: number; readonly attempts?: number };
}

const shapeOf = (error: unknown): SdkErrorShape =>
  typeof error === 'object' && error !== null ? (error as SdkErrorShape) : {};

/** The EC2 error code of an SDK error (its `Code`, else its `name`). */
export const errorCode = (error: unknown): string => {
  const shape = shapeOf(error);
  return shape.Code ?? shape.name ?? 'UnknownError';
};

/** Codes that mean the credentials, not the request, are wrong: no retry can cure them. */
const CREDENTIAL_CODES: ReadonlySet<string> = new Set([
  'AuthFailure',
  'SignatureDoesNotMatch',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'ExpiredToken',
  'ExpiredTokenException',
  'RequestExpired',
  'CredentialsProviderError',
]);

/** Whether EC2 (or the SDK's credential chain) rejected the credentials. */
export const isCredentialError = (error: unknown): boolean => CREDENTIAL_CODES.has(errorCode(error));

const isRetryable = (error: unknown): boolean => {
  if (isCredentialError(error)) return false;
  // An empty answer about a known id is EC2's eventual consistency, not a verdict.
  if (STATE_RACE_CODES.has(errorCode(error)) || errorCode(error) === 'EmptyDescribeResult') return true;
  if (!(error instanceof Error)) return false;
  const sdkError = error as Parameters<typeof isThrottlingError>[0];
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError);
};

/** Wraps whatever an EC2 call threw, once the SDK has given up retrying, into a {@link ProviderApiError}. */
export const toProviderApiError = (
  operation: string,
  instanceId: string | undefined,
  error: unknown,
): ProviderApiError => {
  const shape = shapeOf(error);
  return new ProviderApiError(
    {
      operation,
      code: errorCode(error),
      instanceId,
      httpStatus: shape.$metadata?.httpStatusCode,
      attempts: shape.$metadata?.attempts,
      retryable: isRetryable(error),
      credentials: isCredentialError(error),
      throttled:
        error instanceof Error && isThrottlingError(error as Parameters<typeof isThrottlingError>[0]),
    },
    shape.message ?? String(error),
    { cause: error },
  );
};
