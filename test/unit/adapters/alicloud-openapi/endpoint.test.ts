import { describe, expect, it } from 'vitest';
import { parseOpenApiEndpoint } from '../../../../lib/adapters/alicloud-openapi/endpoint.js';

describe('parseOpenApiEndpoint', () => {
  it.each([
    ['ecs.cn-hangzhou.aliyuncs.com', { protocol: 'https', host: 'ecs.cn-hangzhou.aliyuncs.com' }],
    ['127.0.0.1:8443', { protocol: 'https', host: '127.0.0.1:8443' }],
    ['http://10.0.0.2:9000', { protocol: 'http', host: '10.0.0.2:9000' }],
    [
      'https://kms-vpc.cn-hangzhou.aliyuncs.com/',
      { protocol: 'https', host: 'kms-vpc.cn-hangzhou.aliyuncs.com' },
    ],
  ])('takes %s', (endpoint, target) => {
    expect(parseOpenApiEndpoint(endpoint)).toEqual(target);
  });

  it.each([
    'ftp://ecs.aliyuncs.com',
    'https://ecs.aliyuncs.com/path',
    'ecs.aliyuncs.com:port',
    'user@ecs.aliyuncs.com',
    '',
  ])('refuses %j', (endpoint) => {
    expect(parseOpenApiEndpoint(endpoint)).toBeUndefined();
  });
});
