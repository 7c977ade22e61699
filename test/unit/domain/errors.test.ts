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
        fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
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
    expect(isRetryableError(new ValidationError('bad input'))).toBe(false);
    expect(isRetryableError(undefined)).toBe(false);
  });
});
