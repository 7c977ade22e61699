import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProviderIdError } from '../../../../lib/adapters/alicloud-ecs/errors.js';
import {
  looksLikeAlicloudProviderId,
  parseAlicloudProviderId,
  zoneInRegion,
} from '../../../../lib/adapters/alicloud-ecs/provider-id.js';

const ID = 'i-8vb2y0cdlriptkfer0ir';

describe('parseAlicloudProviderId', () => {
  it.each([
    ['cn-zhangjiakou.i-8vb2y0cdlriptkfer0ir', 'cn-zhangjiakou'],
    ['alicloud://cn-zhangjiakou.i-8vb2y0cdlriptkfer0ir', 'cn-zhangjiakou'],
    ['ap-southeast-1.i-8vb2y0cdlriptkfer0ir', 'ap-southeast-1'],
    ['cn-shanghai-finance-1.i-8vb2y0cdlriptkfer0ir', 'cn-shanghai-finance-1'],
  ])('reads %s', (providerId, region) => {
    expect(parseAlicloudProviderId(providerId)).toStrictEqual({
      provider: 'alicloud',
      instanceId: ID,
      region,
    });
  });

  it.each([
    [undefined, /no spec.providerID/],
    ['', /no spec.providerID/],
    [' cn-hangzhou.i-8vb2y0cdlriptkfer0ir', /whitespace/],
    ['aws:///us-east-1a/i-0123456789abcdef0', /scheme "aws" belongs to another provider/],
    ['i-8vb2y0cdlriptkfer0ir', /expected <region>.<instance-id>/],
    ['cn-hangzhou.192.168.0.81', /is not an ECS instance id/],
    ['cn-hangzhou.i-8VB2Y0CDLRIPTKFER0IR', /is not an ECS instance id/],
    ['Hangzhou.i-8vb2y0cdlriptkfer0ir', /is not an Alibaba Cloud region id/],
    ['alicloud://i-8vb2y0cdlriptkfer0ir', /expected <region>.<instance-id>/],
  ])('refuses %s', (providerId, why) => {
    expect(() => parseAlicloudProviderId(providerId)).toThrow(ProviderIdError);
    expect(() => parseAlicloudProviderId(providerId)).toThrow(why);
  });

  it('never reads an instance out of the node name (ACK names nodes <region>.<ip>)', () => {
    expect(() => parseAlicloudProviderId('cn-zhangjiakou.192.168.0.81')).toThrow(ProviderIdError);
  });

  it('parses back every providerID it accepts, region and id intact', () => {
    const region = fc.stringMatching(/^[a-z]{2}-[a-z]{3,10}(-[0-9])?$/);
    const id = fc.stringMatching(/^i-[0-9a-z]{20}$/);
    fc.assert(
      fc.property(region, id, fc.boolean(), (r, i, prefixed) => {
        const providerId = `${prefixed ? 'alicloud://' : ''}${r}.${i}`;
        expect(looksLikeAlicloudProviderId(providerId)).toBe(true);
        expect(parseAlicloudProviderId(providerId)).toEqual({
          provider: 'alicloud',
          instanceId: i,
          region: r,
        });
      }),
    );
  });
});

describe('zoneInRegion', () => {
  it.each([
    ['cn-hangzhou-i', 'cn-hangzhou', true],
    ['ap-southeast-1a', 'ap-southeast-1', true],
    ['cn-beijing-a', 'cn-hangzhou', false],
    ['cn-hangzhou-finance-a', 'cn-hangzhou', false],
  ])('%s in %s: %s', (zone, region, inside) => {
    expect(zoneInRegion(zone, region)).toBe(inside);
  });
});
