import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  describeReason,
  ErrorName,
  FENCE_PHASES,
  isFencerError,
  isTerminal,
  mayDeleteVolumeAttachments,
  Phase,
  ProviderApiError,
  ProviderIdError,
  REASON_SENTENCES,
  Reason,
  RefusedError,
  resolveStrategy,
  UNFENCE_PHASES,
  ValidationError,
} from '../../../lib/domain/index.js';

describe('phases', () => {
  it('names each phase by itself, so names are stable strings', () => {
    for (const [key, value] of Object.entries(Phase)) expect(value).toBe(key);
  });

  it('ends runs only in terminal phases', () => {
    expect(FENCE_PHASES.filter(isTerminal)).toEqual(['Fenced']);
    expect(UNFENCE_PHASES.filter(isTerminal)).toEqual(['Unfenced']);
    expect(['Refused', 'Failed', 'DryRunReported'].every((p) => isTerminal(p as Phase))).toBe(true);
  });
});

describe('reasons', () => {
  it('gives every reason code a stable PascalCase value and a sentence', () => {
    for (const [key, value] of Object.entries(Reason)) {
      expect(value).toBe(key);
      expect(value).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(describeReason(value)).toMatch(/^[A-Z].*\.$/);
    }
    expect(Object.keys(REASON_SENTENCES).sort()).toEqual(Object.values(Reason).sort());
  });
});

describe('errors', () => {
  it('carries a literal name Step Functions can match, and the cause', () => {
    const cause = new Error('409');
    const error = new ConflictError('node changed', { cause });
    expect(error.name).toBe(ErrorName.Conflict);
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(Error);
    expect(isFencerError(error)).toBe(true);
    expect(isFencerError(new Error('x'))).toBe(false);
  });

  it('carries no cause when none was given', () => {
    expect('cause' in new ValidationError('x')).toBe(false);
  });

  it('carries the reason code on a refusal', () => {
    expect(new RefusedError(Reason.NodeReady, 'no')).toMatchObject({
      name: 'RefusedError',
      reason: 'NodeReady',
    });
  });

  it('says what is wrong with a providerID', () => {
    expect(new ProviderIdError('bad', { providerId: 'aws:///x' })).toMatchObject({ problem: 'unparseable' });
    expect(new ProviderIdError('none')).toMatchObject({ problem: 'missing' });
    expect(new ValidationError('x').name).toBe('ValidationError');
  });
  it('marks a provider error as throttling only when the adapter says so', () => {
    expect(
      new ProviderApiError('Rate exceeded', { operation: 'DescribeInstances', throttled: true }),
    ).toMatchObject({
      name: 'ProviderApiError',
      operation: 'DescribeInstances',
      throttled: true,
    });
    expect(new ProviderApiError('denied')).toMatchObject({ operation: undefined, throttled: false });
    expect(new ProviderApiError('5xx', { throttled: false }).throttled).toBe(false);
  });
});

describe('strategy', () => {
  it.each([
    ['auto', { major: 1, minor: 30 }, 'out-of-service'],
    ['auto', { major: 1, minor: 25 }, 'legacy'],
    ['auto', null, 'out-of-service'],
    ['out-of-service', { major: 1, minor: 25 }, null],
    ['out-of-service', null, 'out-of-service'],
    ['legacy', { major: 1, minor: 30 }, 'legacy'],
    // A later major version is never "older than 1.26", whatever its minor.
    ['auto', { major: 2, minor: 0 }, 'out-of-service'],
  ] as const)('resolves %s on %o to %s', (requested, version, expected) => {
    expect(resolveStrategy(requested, version)).toBe(expected);
  });

  it('allows deleting VolumeAttachments only on the legacy path of a server known to predate 1.26', () => {
    expect(mayDeleteVolumeAttachments('legacy', { major: 1, minor: 25 })).toBe(true);
    expect(mayDeleteVolumeAttachments('legacy', { major: 1, minor: 26 })).toBe(false);
    expect(mayDeleteVolumeAttachments('legacy', null)).toBe(false);
    expect(mayDeleteVolumeAttachments('out-of-service', { major: 1, minor: 25 })).toBe(false);
    expect(mayDeleteVolumeAttachments('legacy', { major: 2, minor: 0 })).toBe(false);
  });
});
