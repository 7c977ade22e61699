/**
 * Errors judged once: the adapter's "not retryable" verdict travels with the fault observe() hands
 * decide(), so the run ends at once instead of retrying until the deadline.
 */
import { describe, expect, it } from 'vitest';
import { ProviderApiError as EcsProviderApiError } from '../../../../lib/adapters/alicloud-ecs/errors.js';
import { ProviderApiError as Ec2ProviderApiError } from '../../../../lib/adapters/aws-ec2/errors.js';
import { faultOf } from '../../../../lib/app/shared/faults.js';

describe('faultOf', () => {
  it('marks an error the ECS adapter judged a credentials problem as permanent credentials', () => {
    const error = new EcsProviderApiError(
      {
        operation: 'DescribeInstances',
        code: 'SignatureDoesNotMatch',
        retryable: false,
        credentials: true,
        throttled: false,
      },
      'the signature does not match',
    );
    expect(faultOf(error)).toMatchObject({ name: 'ProviderApiError', permanent: 'credentials' });
  });

  it('marks any other error judged not retryable as a permanent rejection', () => {
    const error = new Ec2ProviderApiError(
      { operation: 'DescribeInstances', code: 'UnauthorizedOperation', retryable: false },
      'not authorized',
    );
    expect(faultOf(error)).toMatchObject({ permanent: 'rejected' });
  });

  it('leaves a retryable error, and an error that says nothing, to be asked again', () => {
    const throttled = new Ec2ProviderApiError(
      { operation: 'DescribeInstances', code: 'RequestLimitExceeded', retryable: true, throttled: true },
      'slow down',
    );
    expect(faultOf(throttled)).toEqual({
      name: 'ProviderApiError',
      message: throttled.message,
      throttled: true,
    });
    expect(faultOf(new Error('boom'))).toEqual({ name: 'Error', message: 'boom' });
  });
});
