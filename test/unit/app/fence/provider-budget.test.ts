/**
 * A step's provider reads are bounded by what its run has left (an in-process run's `--timeout`), so a
 * throttling provider cannot carry a run past its deadline; and never below one answer's worth, so a
 * step near the end still reads something rather than failing at once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MIN_PROVIDER_BUDGET_MS,
  PROVIDER_BUDGET_MS,
  stepProviderBudgetMs,
} from '../../../../lib/app/fence/observe.js';

describe("a step's provider budget", () => {
  it('never gives more than the run has left, beyond one answer’s worth, nor more than a step may take', () => {
    fc.assert(
      fc.property(fc.integer({ min: -60_000, max: 10 * 60_000 }), (remainingMs) => {
        const budget = stepProviderBudgetMs(remainingMs);
        expect(budget).toBeLessThanOrEqual(PROVIDER_BUDGET_MS);
        expect(budget).toBeGreaterThanOrEqual(MIN_PROVIDER_BUDGET_MS);
        expect(budget).toBeLessThanOrEqual(Math.max(MIN_PROVIDER_BUDGET_MS, remainingMs));
        if (remainingMs >= PROVIDER_BUDGET_MS) expect(budget).toBe(PROVIDER_BUDGET_MS);
      }),
    );
  });

  it('gives the whole budget to a runner with no deadline of its own (a Step Functions task)', () => {
    expect(stepProviderBudgetMs(undefined)).toBe(PROVIDER_BUDGET_MS);
    expect(stepProviderBudgetMs(Number.NaN)).toBe(PROVIDER_BUDGET_MS);
    expect(stepProviderBudgetMs(7_500.9)).toBe(7_500);
  });
});
