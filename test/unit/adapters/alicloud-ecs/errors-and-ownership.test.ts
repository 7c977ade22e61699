/**
 * How ECS's errors become the fencer's, and who owns an instance. The error shapes are the SDK's own
 * classes (openapi-core), built as the SDK builds them from ECS's answers.
 */
import { ClientError, ServerError, ThrottlingError } from '@alicloud/openapi-core/dist/exceptions/error.js';
import { describe, expect, it } from 'vitest';
import {
  ecsCredentialsFromEnv,
  ecsCredentialsFromFunctionCompute,
} from '../../../../lib/adapters/alicloud-ecs/credentials.js';
import { EcsConfigError } from '../../../../lib/adapters/alicloud-ecs/errors.js';
import { defaultOwnershipTags, judgeOwnership } from '../../../../lib/adapters/alicloud-ecs/ownership.js';
import {
  errorCode,
  isRetryable,
  isThrottled,
  toProviderApiError,
} from '../../../../lib/adapters/alicloud-ecs/sdk-errors.js';

const sdkError = (
  Kind: typeof ClientError | typeof ServerError | typeof ThrottlingError,
  statusCode: number,
  code: string,
) =>
  new Kind({
    statusCode,
    code,
    message: `code: ${statusCode}, ECS said no request id: RID-1`,
    requestId: 'RID-1',
    data: { Code: code },
  });

describe('ECS errors', () => {
  it.each([
    ['Throttling.User', ThrottlingError, 400, true, true],
    ['Throttling.Api', ThrottlingError, 400, true, true],
    ['ServiceUnavailable', ServerError, 503, true, false],
    ['InternalError', ServerError, 500, true, false],
    ['IncorrectInstanceStatus.Initializing', ClientError, 403, true, false],
    ['IncorrectInstanceStatus', ClientError, 403, false, false],
    ['InvalidInstanceId.NotFound', ClientError, 404, false, false],
    ['Forbidden.RAM', ClientError, 403, false, false],
    ['InstanceLockedForSecurity', ClientError, 403, false, false],
    ['SignatureDoesNotMatch', ClientError, 400, false, false],
  ] as const)('classifies %s', (code, Kind, status, retryable, throttled) => {
    const error = sdkError(Kind, status, code);
    expect(errorCode(error)).toBe(code);
    expect(isRetryable(error)).toBe(retryable);
    expect(isThrottled(error)).toBe(throttled);
    expect(toProviderApiError('StopInstances', 'i-1', error, 2)).toMatchObject({
      name: 'ProviderApiError',
      code,
      httpStatus: status,
      requestId: 'RID-1',
      attempts: 2,
      retryable,
      throttled,
      message: `ECS StopInstances for i-1 failed after 2 attempts: ${code}: ECS said no`,
    });
  });

  it.each([
    ['SignatureDoesNotMatch', 400, true],
    ['InvalidAccessKeyId.NotFound', 404, true],
    ['InvalidSecurityToken.Expired', 400, true],
    ['Forbidden.RAM', 403, false],
    ['Throttling.User', 400, false],
  ] as const)('judges once whether %s rejects the credentials', (code, status, credentials) => {
    const Kind = code.startsWith('Throttling') ? ThrottlingError : ClientError;
    const wrapped = toProviderApiError('DescribeInstances', 'i-1', sdkError(Kind, status, code));
    expect(wrapped.credentials).toBe(credentials);
    // Rejected credentials are never worth another attempt.
    if (credentials) expect(wrapped.retryable).toBe(false);
  });

  it.each([
    [Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'ECONNRESET', true],
    [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      'ECONNREFUSED',
      true,
    ],
    [
      Object.assign(new Error('ReadTimeout(10000). POST http://x failed.'), { name: 'RequestError' }),
      'ReadTimeout',
      true,
    ],
    [new Error('boom'), 'Error', false],
  ])('classifies transport failures: %s', (error, code, retryable) => {
    expect(errorCode(error)).toBe(code);
    expect(isRetryable(error)).toBe(retryable);
  });
});

describe('judgeOwnership', () => {
  const ref = { instanceId: 'i-1', region: 'cn-hangzhou' };
  const tags = defaultOwnershipTags('c1');
  const instance = (extra: object) => ({
    instanceId: 'i-1',
    regionId: 'cn-hangzhou',
    zoneId: 'cn-hangzhou-i',
    ...extra,
  });
  const tagged = (pairs: Record<string, string>) => ({
    tags: { tag: Object.entries(pairs).map(([tagKey, tagValue]) => ({ tagKey, tagValue })) },
  });

  it.each([
    ['ACK cluster tag', tagged({ 'ack.aliyun.com': 'c1' }), { owned: true }],
    ['Kubernetes cluster tag, owned', tagged({ 'kubernetes.io/cluster/c1': 'owned' }), { owned: true }],
    ['Kubernetes cluster tag, shared', tagged({ 'kubernetes.io/cluster/c1': 'shared' }), { owned: true }],
    ['another ACK cluster', tagged({ 'ack.aliyun.com': 'c2' }), { owned: false, reason: 'wrong-cluster' }],
    ['no tags', {}, { owned: false, reason: 'wrong-cluster' }],
    [
      'another region',
      { regionId: 'cn-beijing', zoneId: 'cn-beijing-a', ...tagged({ 'ack.aliyun.com': 'c1' }) },
      { owned: false, reason: 'wrong-region' },
    ],
  ])('%s', (_name, extra, verdict) => {
    expect(judgeOwnership({ ref, instance: instance(extra), region: 'cn-hangzhou', tags })).toMatchObject(
      verdict,
    );
  });

  it('refuses when the node says another zone than ECS does, or its providerID another region', () => {
    const owned = instance(tagged({ 'ack.aliyun.com': 'c1' }));
    expect(
      judgeOwnership({
        ref: { ...ref, zone: 'cn-hangzhou-h' },
        instance: owned,
        region: 'cn-hangzhou',
        tags,
      }),
    ).toMatchObject({ owned: false, reason: 'wrong-region' });
    expect(
      judgeOwnership({ ref: { ...ref, region: 'cn-beijing' }, instance: owned, region: 'cn-hangzhou', tags }),
    ).toMatchObject({ owned: false, reason: 'wrong-region' });
  });
});

describe('credentials', () => {
  it('reads a key pair, an STS token, nothing, and refuses half a key pair', () => {
    expect(
      ecsCredentialsFromEnv({ ALIBABA_CLOUD_ACCESS_KEY_ID: 'a', ALIBABA_CLOUD_ACCESS_KEY_SECRET: 's' }),
    ).toEqual({ accessKeyId: 'a', accessKeySecret: 's' });
    expect(
      ecsCredentialsFromEnv({
        ALIBABA_CLOUD_ACCESS_KEY_ID: 'STS.a',
        ALIBABA_CLOUD_ACCESS_KEY_SECRET: 's',
        ALIBABA_CLOUD_SECURITY_TOKEN: 't',
      }),
    ).toEqual({ accessKeyId: 'STS.a', accessKeySecret: 's', securityToken: 't' });
    expect(ecsCredentialsFromEnv({})).toBeUndefined();
    expect(() => ecsCredentialsFromEnv({ ALIBABA_CLOUD_ACCESS_KEY_ID: 'a' })).toThrow(EcsConfigError);
    expect(() => ecsCredentialsFromEnv({ ALIBABA_CLOUD_ACCESS_KEY_ID: 'a' })).toThrow(
      /ALIBABA_CLOUD_ACCESS_KEY_SECRET is not set/,
    );
  });

  it('takes Function Compute’s role credentials, and refuses a context without them', () => {
    expect(
      ecsCredentialsFromFunctionCompute({ accessKeyId: 'STS.a', accessKeySecret: 's', securityToken: 't' }),
    ).toEqual({ accessKeyId: 'STS.a', accessKeySecret: 's', securityToken: 't' });
    expect(() => ecsCredentialsFromFunctionCompute({ accessKeyId: 'STS.a', accessKeySecret: 's' })).toThrow(
      /RAM role/,
    );
  });
});
