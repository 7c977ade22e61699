/** One fencer, both clouds: the compute fencer is chosen per node from its providerID, never its name. */
import { describe, expect, it } from 'vitest';
import { EcsComputeFencer } from '../../lib/adapters/alicloud-ecs/index.js';
import { ownsAlicloudProviderId } from '../../lib/adapters/alicloud-ecs/provider-id.js';
import { ownsAwsProviderId } from '../../lib/adapters/aws-ec2/provider-id.js';
import { composeDeps, ProviderRegistry } from '../../lib/compose.js';
import { ec2ComputeFencer } from '../../lib/compose-aws.js';
import { createLogger } from '../../lib/observability/index.js';
import type { ComputeFencer } from '../../lib/ports/compute-fencer.js';

// Each adapter says which providerIDs are its own; the registry only asks them.
const aws = { provider: 'aws', ownsProviderId: ownsAwsProviderId } as ComputeFencer;
const alicloud = { provider: 'alicloud', ownsProviderId: ownsAlicloudProviderId } as ComputeFencer;
const both = new ProviderRegistry([aws, alicloud]);

describe('ProviderRegistry', () => {
  it.each([
    ['aws:///us-east-1a/i-0123456789abcdef0', 'aws'],
    ['aws:///us-east-1a/not-an-instance', 'aws'], // EC2's, and refused by it as unparseable
    ['eks-hybrid://cluster/node', null],
    ['i-0123456789abcdef0', 'aws'],
    ['cn-zhangjiakou.i-8vb2y0cdlriptkfer0ir', 'alicloud'],
    ['alicloud://cn-hangzhou.i-bp1h4adlltjc1d48goaq', 'alicloud'],
    ['cn-hangzhou.192.168.0.81', null],
    ['gce://p/z/n', null],
    ['', null],
  ])('routes %s to %s', (providerId, provider) => {
    expect(both.forProviderId(providerId)?.provider ?? null).toBe(provider);
  });

  it('routes nothing to a provider that is not configured', () => {
    const awsOnly = new ProviderRegistry([aws]);
    expect(awsOnly.forProviderId('cn-hangzhou.i-bp1h4adlltjc1d48goaq')).toBeNull();
  });
});

describe('composeDeps', () => {
  const endpoint = { server: 'https://127.0.0.1:6443', auth: { kind: 'token', token: 't' } } as never;

  const ecs = new EcsComputeFencer({
    region: 'cn-hangzhou',
    credentials: { accessKeyId: 'a', accessKeySecret: 's' },
  });

  it('serves each node with the compute fencer its deployment built, and no node without one', () => {
    const deps = composeDeps({
      endpoint,
      computeFencers: [ecs],
    });
    expect(deps.compute.forProviderId('cn-hangzhou.i-bp1h4adlltjc1d48goaq')?.provider).toBe('alicloud');
    expect(deps.compute.forProviderId('aws:///us-east-1a/i-0123456789abcdef0')).toBeNull();
    expect(
      composeDeps({ endpoint }).compute.forProviderId('aws:///us-east-1a/i-0123456789abcdef0'),
    ).toBeNull();
    const mixed = composeDeps({
      endpoint,
      computeFencers: [
        ec2ComputeFencer({ region: 'us-east-1', logger: createLogger({ silent: true }) }),
        ecs,
      ],
    });
    expect(mixed.compute.forProviderId('aws:///us-east-1a/i-0123456789abcdef0')?.provider).toBe('aws');
    expect(mixed.compute.forProviderId('cn-hangzhou.i-bp1h4adlltjc1d48goaq')?.provider).toBe('alicloud');
  });
});
