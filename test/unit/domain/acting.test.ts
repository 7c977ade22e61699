/**
 * The acting table's rules one by one (lib/domain/acting.ts): what a waiting run tells the operator,
 * and that a rule says "not applicable" (SAFETY.md's tri-state verdict) to a step it does not speak to.
 * The table as a whole is judged by acting.property.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ACTING_TABLE, type ActingContext, actAsDecided, decideActing } from '../../../lib/domain/acting.js';
import { decide, describeReason, NotApplicable, Reason } from '../../../lib/domain/index.js';
import { aRequest, freshHistory, observe, provenHistory, stopped } from './support/fixtures.js';

/** A committed run about to release its node (a taint), or a fresh run about to power off. */
const step = (stage: 'commit' | 'release'): Omit<ActingContext, 'claim' | 'refused'> => {
  const history = stage === 'commit' ? freshHistory() : provenHistory();
  const observation =
    stage === 'commit' ? observe({ at: 20 }) : observe({ at: 60, power: stopped(55), disks: [] });
  return { history, observation, decision: decide(observation, aRequest(), history) };
};

describe('claim-lost-after-commit', () => {
  it('tells the operator which runs fill the in-flight limit while the committed run waits', () => {
    const d = decideActing({
      ...step('release'),
      claim: { granted: false, reason: 'in-flight-limit', inFlight: ['worker-2', 'worker-3'] },
      refused: null,
    });
    expect(d).toMatchObject({ done: false, reason: Reason.TooManyInFlight, rule: 'claim-lost-after-commit' });
    expect(d.message).toBe(`${describeReason(Reason.TooManyInFlight)} (in flight: worker-2, worker-3)`);
  });
});

describe('every acting rule but the last', () => {
  const rules = ACTING_TABLE.filter((rule) => rule.id !== actAsDecided.id);

  it.each(['commit', 'release'] as const)(
    'is not applicable to a step (%s) that holds its claim and was not refused',
    (stage) => {
      const ctx: ActingContext = { ...step(stage), claim: { granted: true, inFlight: [] }, refused: null };
      for (const rule of rules) expect(rule.check(ctx), rule.id).toEqual(NotApplicable);
      expect(decideActing(ctx)).toEqual(ctx.decision);
    },
  );

  it('is not applicable to a dry run, which asks for no claim', () => {
    const ctx: ActingContext = { ...step('commit'), claim: null, refused: null };
    for (const rule of rules) expect(rule.check(ctx), rule.id).toEqual(NotApplicable);
  });
});
