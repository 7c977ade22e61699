/** A schema's complaints as one bounded line, whatever the input (lib/config/issues.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { describeIssues, MAX_ISSUES_NAMED } from '../../../lib/config/issues.js';

const strict = z.object({ node: z.string() }).strict();
const many = z.object(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, z.number()])));

const issuesOf = (schema: z.ZodType, input: unknown): string => {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error('expected the input to be invalid');
  return describeIssues(parsed.error);
};

describe('describeIssues', () => {
  it('names one unknown key as it is', () => {
    expect(issuesOf(strict, { node: 'a', force: true })).toBe('(root): unrecognized key "force"');
  });

  it('names the first 5 problems and counts the rest', () => {
    const line = issuesOf(many, {});
    expect(line.split('; ')).toHaveLength(MAX_ISSUES_NAMED);
    expect(line).toMatch(/^f0: .*; f4: .* and 15 more problems$/);
  });

  it('stays under 2 KB for any number and length of unknown keys', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 2_000 }), { maxLength: 300 }), (keys) => {
        const input = { node: 'a', ...Object.fromEntries(keys.map((k) => [`k${k}`, 1])) };
        const parsed = strict.safeParse(input);
        const line = parsed.success ? '' : describeIssues(parsed.error);
        expect(line.length).toBeLessThan(2_048);
      }),
      { numRuns: 200 },
    );
  });

  it('clips a path made of a huge key', () => {
    const nested = z.record(z.string(), z.number());
    const line = issuesOf(nested, { ['y'.repeat(50_000)]: 'not a number' });
    expect(line.length).toBeLessThan(400);
    expect(line).toMatch(/^y{120}…: /);
  });
});
