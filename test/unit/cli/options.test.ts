/** The CLI's value parsers: kubectl's durations, AWS region names and account ids, checked before anything runs. */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { awsAccountId, awsRegion, duration } from '../../../cli/options.js';

describe('duration', () => {
  const parse = duration('--timeout');

  it.each([
    ['90', 90],
    ['90s', 90],
    ['5m', 300],
    ['1h30m', 5400],
    ['1h', 3600],
    ['2m30s', 150],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(parse(text)).toBe(seconds);
  });

  it.each(['5x', '1.5m', '-5s', 'm', '', '5m junk', '500ms'])('refuses %j', (text) => {
    expect(() => parse(text)).toThrow(InvalidArgumentError);
  });
});

describe('awsRegion', () => {
  it.each(['eu-west-1', 'us-east-1', 'us-gov-west-1', 'cn-north-1', 'ap-southeast-5', 'us-isob-east-1'])(
    'accepts %s',
    (region) => {
      expect(awsRegion(region)).toBe(region);
    },
  );

  it.each(['not-a-region', 'eu-west', 'EU-WEST-1', 'euwest1', 'eu-west-1a', ''])('refuses %j', (region) => {
    expect(() => awsRegion(region)).toThrow('not an AWS region name (like eu-west-1)');
  });
});

describe('awsAccountId', () => {
  it('accepts 12 digits', () => {
    expect(awsAccountId('123456789012')).toBe('123456789012');
  });

  it.each(['abc', '12345678901', '1234567890123', '12345678901a'])('refuses %j', (id) => {
    expect(() => awsAccountId(id)).toThrow('an AWS account id is 12 digits');
  });
});
