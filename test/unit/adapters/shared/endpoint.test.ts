import { describe, expect, it } from 'vitest';
import { splitEndpoint } from '../../../../lib/adapters/shared/endpoint.js';

const refuse = (endpoint: string) => new Error(`refused ${endpoint}`);

describe('splitEndpoint', () => {
  it.each([
    ['ecs.cn-hangzhou.aliyuncs.com', { protocol: 'https', host: 'ecs.cn-hangzhou.aliyuncs.com' }],
    ['127.0.0.1:8443', { protocol: 'https', host: '127.0.0.1:8443' }],
    ['http://127.0.0.1:8080', { protocol: 'http', host: '127.0.0.1:8080' }],
    ['http://127.0.0.1:8080/', { protocol: 'http', host: '127.0.0.1:8080' }],
    [
      'https://kms-vpc.cn-beijing.aliyuncs.com',
      { protocol: 'https', host: 'kms-vpc.cn-beijing.aliyuncs.com' },
    ],
  ])('reads %s', (endpoint, expected) => {
    expect(splitEndpoint(endpoint, refuse)).toStrictEqual(expected);
  });

  it.each([
    '',
    'ftp://example.com',
    'https://example.com/path',
    'https://',
    'example.com/path',
    'example.com:port',
    ' example.com',
  ])("refuses %j in the caller's words", (endpoint) => {
    expect(() => splitEndpoint(endpoint, refuse)).toThrow(`refused ${endpoint}`);
  });
});
