import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProviderIdError } from '../../../../lib/adapters/aws-ec2/errors.js';
import { parseAwsProviderId, zoneInRegion } from '../../../../lib/adapters/aws-ec2/provider-id.js';

const LONG_ID = 'i-0123456789abcdef0';
const SHORT_ID = 'i-0a1b2c3d';

describe('parseAwsProviderId', () => {
  it.each([
    ['aws:///us-east-1a/i-0123456789abcdef0', { provider: 'aws', instanceId: LONG_ID, zone: 'us-east-1a' }],
    [
      'aws:///us-east-1-bos-1a/i-0123456789abcdef0',
      { provider: 'aws', instanceId: LONG_ID, zone: 'us-east-1-bos-1a' },
    ],
    ['aws:///cn-north-1b/i-0a1b2c3d', { provider: 'aws', instanceId: SHORT_ID, zone: 'cn-north-1b' }],
    ['aws:////i-0123456789abcdef0', { provider: 'aws', instanceId: LONG_ID }],
    ['i-0123456789abcdef0', { provider: 'aws', instanceId: LONG_ID }],
    ['i-0a1b2c3d', { provider: 'aws', instanceId: SHORT_ID }],
  ])('reads %s', (providerId, expected) => {
    // Act
    const ref = parseAwsProviderId(providerId);

    // Assess
    expect(ref).toStrictEqual(expected);
  });

  it.each([
    [undefined, /no spec.providerID/],
    ['', /no spec.providerID/],
    ['   ', /whitespace/],
    [' aws:///us-east-1a/i-0123456789abcdef0', /whitespace/],
    ['i-0123456789abcdef0\n', /whitespace/],
    ['eks-hybrid://us-west-2/my-cluster/mi-0123456789abcdef0', /EKS hybrid node/],
    ['gce://my-project/us-central1-a/node-1', /scheme "gce" belongs to another provider/],
    ['azure:///subscriptions/x/resourceGroups/y', /scheme "azure" belongs to another provider/],
    ['aws:///us-east-1a/not-an-instance', /"not-an-instance" is not an EC2 instance id/],
    ['aws:///us-east-1a/fargate-ip-192-168-1-1.ec2.internal', /is not an EC2 instance id/],
    ['aws:///us-east-1a/i-0123456789ABCDEF0', /is not an EC2 instance id/],
    ['aws:///us-east-1a/i-0123456789abcdef', /is not an EC2 instance id/],
    ['aws:///us-east-1a/i-0123456789abcdef0/extra', /expected aws:\/\/\//],
    ['aws://us-east-1a/i-0123456789abcdef0', /expected aws:\/\/\//],
    ['aws:///US-EAST-1A/i-0123456789abcdef0', /not an AWS availability zone name/],
    ['i-', /is not an EC2 instance id/],
    ['i-0123456', /is not an EC2 instance id/],
    ['node-a', /expected aws:\/\/\//],
    ['\u{1F4A5}', /expected aws:\/\/\//],
  ])('refuses %j', (providerId, reason) => {
    // Act
    const parse = () => parseAwsProviderId(providerId);

    // Assess
    expect(parse).toThrow(ProviderIdError);
    expect(parse).toThrow(reason);
  });

  it('names the providerID and its reason on the error', () => {
    // Act
    const error = (() => {
      try {
        parseAwsProviderId('gce://p/z/n');
      } catch (caught) {
        return caught;
      }
    })();

    // Assess
    expect(error).toMatchObject({ name: 'ProviderIdError', providerId: 'gce://p/z/n' });
    expect((error as ProviderIdError).reason).toMatch(/another provider/);
  });
});

/** The grammar, written independently of the parser: zone optional, id of 8 or 17 lowercase hex digits. */
const GRAMMAR = /^(?:aws:\/\/\/(?:[a-z]{2}(?:-[a-z0-9]+)+)?\/)?i-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const instanceId = fc.oneof(hex(8), hex(17)).map((digits) => `i-${digits}`);
const zone = fc.constantFrom(
  'us-east-1a',
  'eu-west-3c',
  'us-gov-west-1b',
  'us-east-1-bos-1a',
  'ap-southeast-2-wl1-syd-wlz-1',
);
/** Strings near the grammar: valid pieces glued to noise, so the property probes the edges. */
const nearMiss = fc
  .tuple(
    fc.constantFrom('', 'aws:///', 'aws:////', 'aws://', 'AWS:///', 'gce://', 'i-'),
    fc.option(zone, { nil: '' }),
    fc.constantFrom('', '/', '//'),
    fc.oneof(instanceId, fc.string()),
    fc.oneof(fc.constant(''), fc.string({ maxLength: 3 })),
  )
  .map((parts) => parts.join(''));

describe('parseAwsProviderId properties', () => {
  it('parses a string exactly when it matches the providerID grammar', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), nearMiss), (candidate) => {
        let parsed = true;
        try {
          parseAwsProviderId(candidate);
        } catch (error) {
          expect(error).toBeInstanceOf(ProviderIdError);
          parsed = false;
        }
        expect(parsed).toBe(GRAMMAR.test(candidate));
      }),
      { numRuns: 1_000 },
    );
  });

  it('returns the instance id and zone it was given', () => {
    fc.assert(
      fc.property(instanceId, fc.option(zone, { nil: undefined }), (id, az) => {
        const ref = parseAwsProviderId(`aws:///${az ?? ''}/${id}`);
        expect(ref).toStrictEqual(
          az === undefined
            ? { provider: 'aws', instanceId: id }
            : { provider: 'aws', instanceId: id, zone: az },
        );
      }),
    );
  });
});

describe('zoneInRegion', () => {
  it.each([
    ['us-east-1a', 'us-east-1', true],
    ['us-east-1-bos-1a', 'us-east-1', true],
    ['us-east-11a', 'us-east-1', false],
    ['us-west-2a', 'us-east-1', false],
    ['us-east-1', 'us-east-1', false],
  ])('%s in %s is %s', (az, region, expected) => {
    expect(zoneInRegion(az, region)).toBe(expected);
  });
});
