import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { ExitCode } from '../../../cli/exit-codes.js';
import { reportFatal } from '../../../cli/fatal.js';

describe('reportFatal', () => {
  afterEach(() => vi.restoreAllMocks());

  const printed = (err: unknown): { code: number; text: string } => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const code = reportFatal(err);
    return { code, text: lines.join('') };
  };

  it('says what a schema refused in one bounded line, whatever the size of the input', () => {
    const keys = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    const result = z.strictObject({ node: z.string() }).safeParse(keys);
    if (result.success) throw new Error('the schema should refuse the input');

    const { code, text } = printed(result.error);

    expect(code).toBe(ExitCode.Usage);
    expect(text.split('\n').filter(Boolean)).toHaveLength(1);
    expect(text).toMatch(/^fencer: invalid request: node: /);
    expect(text).toContain('and 99995 more keys');
    expect(text.length).toBeLessThan(1000);
  });
});
