/**
 * Time for messages (lib/domain/time.ts): how far a time lies before the moment it is compared with, in
 * the words an operator reads in a decision's evidence.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { relativeTo } from '../../../lib/domain/time.js';
import { T0 } from './support/fixtures.js';

describe('relativeTo', () => {
  it('says "before" for a time at or before the moment, "after" for one later', () => {
    expect(relativeTo(T0, T0)).toBe('0s before');
    expect(relativeTo(T0 - 12_000, T0)).toBe('12s before');
    expect(relativeTo(T0 + 1000, T0)).toBe('1s after');
  });

  it('reads a time within half a second of the moment as the moment itself', () => {
    fc.assert(
      fc.property(fc.integer({ min: -499, max: 499 }), (ms) => {
        expect(relativeTo(T0 + ms, T0)).toBe('0s before');
      }),
    );
  });

  it('names the whole seconds between the two, to the nearest, never a negative count', () => {
    fc.assert(
      fc.property(fc.integer({ min: -86_400_000, max: 86_400_000 }), (ms) => {
        const [, count = '', side] = /^(\d+)s (before|after)$/.exec(relativeTo(T0 + ms, T0)) ?? [];
        expect(Math.abs(Number(count) - Math.abs(ms) / 1000)).toBeLessThanOrEqual(0.5);
        if (ms <= 0) expect(side).toBe('before');
        if (ms > 500) expect(side).toBe('after');
      }),
    );
  });
});
