/**
 * Taint ownership (SAFETY.md rules 6 and 7): a taint is the fencer's only when all four fields equal the
 * ones its fence record names; every other out-of-service taint is someone else's, and no other key counts.
 */
import { describe, expect, it } from 'vitest';
import {
  outOfServiceState,
  outOfServiceTaintAt,
  sameTaint,
  ValidationError,
} from '../../../lib/domain/index.js';
import { OUR_RECORD, OUR_TAINT, THEIR_TAINT } from './support/fixtures.js';

describe('sameTaint', () => {
  it('is the same taint only when key, value, effect and timeAdded all agree', () => {
    expect(sameTaint(OUR_TAINT, { ...OUR_TAINT })).toBe(true);
    for (const other of [
      { ...OUR_TAINT, key: 'node.kubernetes.io/unreachable' },
      { ...OUR_TAINT, value: 'maintenance' },
      { ...OUR_TAINT, value: null },
      { ...OUR_TAINT, effect: 'NoSchedule' as const },
      { ...OUR_TAINT, timeAdded: null },
      THEIR_TAINT,
    ]) {
      expect(sameTaint(OUR_TAINT, other), JSON.stringify(other)).toBe(false);
      expect(sameTaint(other, OUR_TAINT), JSON.stringify(other)).toBe(false);
    }
  });

  it('treats a missing value or time like null', () => {
    const bare = { ...OUR_TAINT, value: null, timeAdded: null };
    expect(sameTaint(bare, { ...bare, value: undefined, timeAdded: undefined } as never)).toBe(true);
  });
});

describe('outOfServiceState', () => {
  const unreachable = {
    key: 'node.kubernetes.io/unreachable',
    value: null,
    effect: 'NoExecute' as const,
    timeAdded: null,
  };

  it('counts only out-of-service taints, whatever else the node carries', () => {
    expect(outOfServiceState([unreachable], null)).toEqual({
      ours: null,
      foreign: [],
      staleRecord: false,
      releasing: false,
    });
    expect(outOfServiceState([unreachable, OUR_TAINT], OUR_RECORD)).toEqual({
      ours: OUR_TAINT,
      foreign: [],
      staleRecord: false,
      releasing: true,
    });
  });

  it('calls every out-of-service taint foreign without a record, and a NoSchedule one not releasing', () => {
    const noSchedule = { ...THEIR_TAINT, effect: 'NoSchedule' as const };
    expect(outOfServiceState([noSchedule], null)).toEqual({
      ours: null,
      foreign: [noSchedule],
      staleRecord: false,
      releasing: false,
    });
    expect(outOfServiceState([OUR_TAINT], null)).toMatchObject({
      ours: null,
      foreign: [OUR_TAINT],
      releasing: true,
    });
  });

  it('keeps someone else’s taint foreign beside the fencer’s own', () => {
    expect(outOfServiceState([THEIR_TAINT, OUR_TAINT], OUR_RECORD)).toEqual({
      ours: OUR_TAINT,
      foreign: [THEIR_TAINT],
      staleRecord: false,
      releasing: true,
    });
  });
});

describe('outOfServiceTaintAt', () => {
  it('stamps the taint to the second, as the API server stores it', () => {
    expect(outOfServiceTaintAt('2026-03-01T10:00:45.678Z')).toEqual({
      key: 'node.kubernetes.io/out-of-service',
      value: 'nodeshutdown',
      effect: 'NoExecute',
      timeAdded: '2026-03-01T10:00:45Z',
    });
  });

  it('refuses a time it cannot read, naming the field it stamps', () => {
    expect(() => outOfServiceTaintAt('yesterday')).toThrow(
      new ValidationError('timeAdded is not an ISO 8601 time with a zone: "yesterday"'),
    );
  });
});
