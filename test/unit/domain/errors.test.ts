/** Which failed steps are retried (lib/domain/errors.ts): the CLI's loop and the tests of it rely on it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  ErrorName,
  isRetryableError,
  KubernetesApiError,
  ProviderApiError,
  RETRYABLE_ERROR_NAMES,
  ValidationError,
} from '../../../lib/domain/errors.js';

describe('isRetryableError', () => {
  it('retries the retryable kinds, and a Kubernetes error only when the server did not refuse the identity', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.values(ErrorName), 'TypeError', 'Error'),
        // 401 and 403 often, on every kind of error: only the API server's refusal of the identity counts.
        fc.option(fc.oneof(fc.constantFrom(401, 403), fc.integer({ min: 100, max: 599 })), {
          nil: undefined,
        }),
        (name, statusCode) => {
          const error = Object.assign(new Error('x'), { name, statusCode });
          const refused = name === ErrorName.KubernetesApi && (statusCode === 401 || statusCode === 403);
          expect(isRetryableError(error)).toBe(RETRYABLE_ERROR_NAMES.includes(name as never) && !refused);
        },
      ),
    );
  });

  it('judges the real classes the same way', () => {
    expect(isRetryableError(new KubernetesApiError('etcd leader changed', { statusCode: 500 }))).toBe(true);
    expect(isRetryableError(new KubernetesApiError('no answer'))).toBe(true);
    expect(isRetryableError(new KubernetesApiError('forbidden', { statusCode: 403 }))).toBe(false);
    expect(isRetryableError(new ProviderApiError('throttled', { throttled: true }))).toBe(true);
    expect(isRetryableError(new ConflictError('lost a race'))).toBe(true);
    // Only a Kubernetes error's 401 or 403 is the API server refusing the identity; another kind is judged by its kind.
    expect(isRetryableError(Object.assign(new ProviderApiError('denied'), { statusCode: 403 }))).toBe(true);
    expect(isRetryableError(new ValidationError('bad input'))).toBe(false);
    expect(isRetryableError(undefined)).toBe(false);
  });
});
