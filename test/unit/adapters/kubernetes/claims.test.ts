import { describe, expect, it } from 'vitest';
import {
  type Claims,
  decideClaim,
  liveClaims,
  parseClaims,
  parseMaxInFlight,
  serializeClaims,
  withoutClaim,
} from '../../../../lib/adapters/kubernetes/claims.js';
import { ValidationError } from '../../../../lib/domain/errors.js';

const NOW = new Date('2026-03-01T10:10:00Z');
const secondsAgo = (s: number): string => new Date(NOW.getTime() - s * 1000).toISOString();
const LIMITS = { maxInFlight: 2, ttlSeconds: 600 };

describe('parseClaims', () => {
  it('reads no annotation as no claims', () => {
    expect(parseClaims(undefined, 'lease/kube-system/kube-fencer')).toStrictEqual({});
  });

  it('reads claims by node', () => {
    // Act
    const claims = parseClaims('{"node-a":{"runId":"r1","renewedAt":"2026-03-01T10:00:00Z"}}', 'lease/x');

    // Assess
    expect(claims).toStrictEqual({ 'node-a': { runId: 'r1', renewedAt: '2026-03-01T10:00:00Z' } });
  });

  it.each([
    ['not JSON', '{', /is not JSON/],
    ['an array', '[]', /not an object of claims/],
    [
      'a claim without runId',
      '{"node-a":{"renewedAt":"2026-03-01T10:00:00Z"}}',
      /malformed claim for node-a/,
    ],
    [
      'a claim with a bad date',
      '{"node-a":{"runId":"r1","renewedAt":"yesterday"}}',
      /malformed claim for node-a/,
    ],
  ])('refuses %s instead of reading it as nothing in flight', (_what, text, message) => {
    // Act
    const parse = () => parseClaims(text, 'lease/kube-system/kube-fencer');

    // Assess
    expect(parse).toThrow(ValidationError);
    expect(parse).toThrow(message);
  });

  it('round-trips through serializeClaims', () => {
    // Prepare
    const claims: Claims = {
      'node-b': { runId: 'r2', renewedAt: NOW.toISOString() },
      'node-a': { runId: 'r1', renewedAt: NOW.toISOString() },
    };

    // Act
    const text = serializeClaims(claims);

    // Assess
    expect(parseClaims(text, 'x')).toStrictEqual(claims);
    expect(Object.keys(JSON.parse(text))).toStrictEqual(['node-a', 'node-b']);
  });
});

describe('parseMaxInFlight', () => {
  it('reads the cluster limit, 1 when unset', () => {
    expect(parseMaxInFlight(undefined, 'x')).toBe(1);
    expect(parseMaxInFlight(' 3 ', 'x')).toBe(3);
  });

  it.each(['0', '-1', '1.5', 'two', '1001'])('refuses %s rather than lifting the limit', (text) => {
    expect(() => parseMaxInFlight(text, 'lease/kube-system/kube-fencer')).toThrow(/max-in-flight/);
  });
});

describe('liveClaims', () => {
  it('judges each claim on the TTL its holder declared, the fallback only for claims without one', () => {
    const live = liveClaims(
      {
        cli: { runId: 'r1', renewedAt: secondsAgo(100), ttlSeconds: 90 },
        workflow: { runId: 'r2', renewedAt: secondsAgo(100), ttlSeconds: 900 },
        old: { runId: 'r3', renewedAt: secondsAgo(100) },
      },
      NOW,
      120,
    );
    expect(Object.keys(live)).toStrictEqual(['workflow', 'old']);
  });

  it('keeps a claim dated after the server clock: failing closed keeps the slot taken', () => {
    const live = liveClaims({ ahead: { runId: 'r1', renewedAt: secondsAgo(-3600) } }, NOW, 600);
    expect(Object.keys(live)).toStrictEqual(['ahead']);
  });

  it('drops claims not renewed within the TTL', () => {
    // Act
    const live = liveClaims(
      {
        old: { runId: 'r1', renewedAt: secondsAgo(601) },
        fresh: { runId: 'r2', renewedAt: secondsAgo(599) },
      },
      NOW,
      600,
    );

    // Assess
    expect(Object.keys(live)).toStrictEqual(['fresh']);
  });
});

describe('decideClaim', () => {
  it('grants a claim while the limit has room, and lists what is in flight', () => {
    // Act
    const { result, next } = decideClaim(
      { 'node-a': { runId: 'r1', renewedAt: secondsAgo(10) } },
      'node-b',
      'r2',
      LIMITS,
      NOW,
    );

    // Assess
    expect(result).toStrictEqual({ granted: true, inFlight: ['node-a', 'node-b'] });
    expect(next?.['node-b']).toStrictEqual({ runId: 'r2', renewedAt: NOW.toISOString(), ttlSeconds: 600 });
  });

  it('refuses a claim beyond the in-flight limit and writes nothing', () => {
    // Act
    const decision = decideClaim(
      { 'node-a': { runId: 'r1', renewedAt: secondsAgo(10) } },
      'node-b',
      'r2',
      { ...LIMITS, maxInFlight: 1 },
      NOW,
    );

    // Assess
    expect(decision).toStrictEqual({
      result: { granted: false, reason: 'in-flight-limit', inFlight: ['node-a'] },
    });
  });

  it('refuses a node another run holds, naming that run', () => {
    // Act
    const decision = decideClaim(
      { 'node-b': { runId: 'r1', renewedAt: secondsAgo(10) } },
      'node-b',
      'r2',
      LIMITS,
      NOW,
    );

    // Assess
    expect(decision).toStrictEqual({ result: { granted: false, reason: 'claimed-by-other', holder: 'r1' } });
  });

  it('renews the claim of the same run, even at the limit', () => {
    // Act
    const { result, next } = decideClaim(
      { 'node-b': { runId: 'r1', renewedAt: secondsAgo(300) } },
      'node-b',
      'r1',
      { ...LIMITS, maxInFlight: 1 },
      NOW,
    );

    // Assess
    expect(result).toStrictEqual({ granted: true, inFlight: ['node-b'] });
    expect(next).toStrictEqual({ 'node-b': { runId: 'r1', renewedAt: NOW.toISOString(), ttlSeconds: 600 } });
  });

  it('lets an expired claim be taken over, and drops it from what is written', () => {
    // Act
    const { result, next } = decideClaim(
      {
        'node-a': { runId: 'r1', renewedAt: secondsAgo(700) },
        'node-b': { runId: 'r0', renewedAt: secondsAgo(700) },
      },
      'node-b',
      'r2',
      { ...LIMITS, maxInFlight: 1 },
      NOW,
    );

    // Assess
    expect(result).toStrictEqual({ granted: true, inFlight: ['node-b'] });
    expect(Object.keys(next ?? {})).toStrictEqual(['node-b']);
  });
});

describe('withoutClaim', () => {
  const claims: Claims = { 'node-a': { runId: 'r1', renewedAt: secondsAgo(1) } };

  it("drops the run's own claim", () => {
    expect(withoutClaim(claims, 'node-a', 'r1')).toStrictEqual({});
  });

  it("leaves another run's claim, and a missing one, alone", () => {
    expect(withoutClaim(claims, 'node-a', 'r2')).toBeUndefined();
    expect(withoutClaim(claims, 'node-b', 'r1')).toBeUndefined();
  });
});
