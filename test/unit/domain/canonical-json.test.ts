/**
 * Canonical JSON (lib/domain/canonical-json.ts): one text for every value that is equal as data. A run
 * checkpoint's seal is computed over it and a checkpoint is matched to its request by it, so the text
 * must not depend on the order a value's keys were written in, and must stay the same from one release
 * to the next (a seal written by the previous fencer is checked by the next one).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../lib/domain/canonical-json.js';

/** The same data with every object's keys written in the opposite order, at every depth. */
const reversedKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversedKeys(v)]),
    );
  }
  return value;
};

describe('canonicalJson', () => {
  it('is JSON of the same data', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('gives one text whatever order the keys were written in, at every depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(reversedKeys(value))).toBe(canonicalJson(value));
      }),
    );
    expect(canonicalJson({ node: 'worker-1', dryRun: false })).toBe(
      canonicalJson({ dryRun: false, node: 'worker-1' }),
    );
  });

  it('writes keys in code-unit order at every depth, inside arrays too (the seal’s v1 text)', () => {
    const value = { b: 1, a: { d: [{ f: 1, e: 2 }, 'x', null], c: null }, Z: true };
    expect(canonicalJson(value)).toBe('{"Z":true,"a":{"c":null,"d":[{"e":2,"f":1},"x",null]},"b":1}');
  });

  it('reads a key set to undefined as a key not written, as JSON does', () => {
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
  });

  it('writes a lone scalar or null as JSON does', () => {
    for (const value of [null, 0, 'text', true]) expect(canonicalJson(value)).toBe(JSON.stringify(value));
  });
});
