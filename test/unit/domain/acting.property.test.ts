/**
 * The acting table (lib/domain/acting.ts) as properties over generated steps: decide() chose an action
 * on a real observation (a fresh run committing, or a committed run taking its next step), then the
 * cluster's fencing claim or the provider's answer came back. An oracle written from SAFETY.md alone
 * says what the step must then be; and, as for the fence table, leaving any rule out of the acting table
 * breaks some property (no rule is dead weight).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACTING_TABLE,
  type ActingContext,
  type ClaimResult,
  decideActing,
  type RefusedAction,
} from '../../../lib/domain/acting.js';
import { type Decision, decide, Reason } from '../../../lib/domain/index.js';
import { aRequest, freshHistory, observe, provenHistory, stopped, t } from './support/fixtures.js';

type DecideActing = (ctx: ActingContext) => Decision;

/** A step about to act: a fresh run committing (power-off), or a committed run releasing (taint). */
const stepArb = fc.constantFrom('commit', 'release').map((stage) => {
  const history = stage === 'commit' ? freshHistory() : provenHistory();
  const observation =
    stage === 'commit' ? observe({ at: 20 }) : observe({ at: 60, power: stopped(55), disks: [] });
  const decision = decide(observation, aRequest(), history);
  return { history, observation, decision };
});

const claimArb: fc.Arbitrary<ClaimResult | null> = fc.oneof(
  fc.constant(null),
  fc.constant({ granted: true as const, inFlight: [] }),
  fc.constant({
    granted: false as const,
    reason: 'in-flight-limit' as const,
    inFlight: ['worker-2', 'worker-3'],
  }),
  fc.constant({ granted: false as const, reason: 'claimed-by-other' as const, holder: 'run-9' }),
);

const refusedArb: fc.Arbitrary<RefusedAction | null> = fc.oneof(
  fc.constant(null),
  fc.record({
    reason: fc.constantFrom(Reason.InstanceNotStoppable, Reason.ProviderCallRejected),
    detail: fc.constantFrom('a one-time Spot instance', 'AccessDenied'),
  }),
);

/** A step that tried to act: a denied claim means nothing was tried, so nothing was refused. */
const contextArb: fc.Arbitrary<ActingContext> = fc
  .record({ step: stepArb, claim: claimArb, refused: refusedArb })
  .map(({ step, claim, refused }) => ({
    ...step,
    claim,
    refused: claim?.granted === false ? null : refused,
  }));

const committedBefore = (ctx: ActingContext): boolean => ctx.history.decidedToFenceAt !== null;

/** The contract's word on one acting step, independent of the table. */
const properties: readonly { name: string; holds: (ctx: ActingContext, d: Decision) => void }[] = [
  {
    name: 'acts on nothing while it does not hold the claim',
    holds: (ctx, d) => {
      if (ctx.claim?.granted === false) expect(d.action).toBeNull();
    },
  },
  {
    name: 'waits, history kept, while another run holds the node',
    holds: (ctx, d) => {
      if (ctx.claim?.granted !== false || ctx.claim.reason !== 'claimed-by-other') return;
      expect([d.done, d.reason, d.history]).toEqual([false, Reason.AlreadyInProgress, ctx.history]);
      expect(d.waitSeconds).toBeGreaterThan(0);
    },
  },
  {
    name: 'refuses a run that would commit beyond the in-flight limit, and only that one',
    holds: (ctx, d) => {
      if (ctx.claim?.granted !== false || ctx.claim.reason !== 'in-flight-limit') return;
      expect(d.reason).toBe(Reason.TooManyInFlight);
      if (committedBefore(ctx)) {
        // Committed already: its machine may be off; it waits to act again, never abandons the run.
        expect([d.done, d.history]).toEqual([false, ctx.history]);
      } else {
        expect([d.phase, d.done]).toEqual(['Refused', true]);
        expect(d.history.steps.at(-1)).toMatchObject({ phase: 'Refused', reason: Reason.TooManyInFlight });
      }
    },
  },
  {
    name: "ends the run with the provider's reason when it refuses the action: Failed once committed",
    holds: (ctx, d) => {
      if (ctx.refused === null) return;
      expect([d.phase, d.done, d.reason]).toEqual([
        committedBefore(ctx) ? 'Failed' : 'Refused',
        true,
        ctx.refused.reason,
      ]);
      expect(d.message).toContain(ctx.refused.detail);
      expect(d.history.steps.at(-1)).toMatchObject({ reason: ctx.refused.reason });
    },
  },
  {
    name: 'keeps the decision as decided when nothing stopped the step',
    holds: (ctx, d) => {
      if (ctx.claim?.granted === false || ctx.refused !== null) return;
      expect(d).toEqual(ctx.decision);
    },
  },
];

/** The first property that fails with `decideWith`, or null. */
function firstBroken(decideWith: DecideActing): string | null {
  for (const { name, holds } of properties) {
    const result = fc.check(
      fc.property(contextArb, (ctx) => holds(ctx, decideWith(ctx))),
      { numRuns: 200, seed: 20_261_205 },
    );
    if (result.failed) return name;
  }
  return null;
}

describe('the acting table', () => {
  it('generates every kind of step the table speaks to', () => {
    const kinds = new Set(
      fc
        .sample(contextArb, { numRuns: 400, seed: 1 })
        .map((ctx) =>
          [
            ctx.claim === null ? 'no-claim' : ctx.claim.granted ? 'granted' : ctx.claim.reason,
            ctx.refused !== null,
            committedBefore(ctx),
          ].join('/'),
        ),
    );
    for (const kind of [
      'in-flight-limit/false/false',
      'in-flight-limit/false/true',
      'claimed-by-other/false/false',
      'granted/true/false',
      'no-claim/true/true',
    ])
      expect(kinds).toContain(kind);
    // The decisions acted on are real ones: a commit that powers off, a release that taints.
    expect(new Set(fc.sample(stepArb, { numRuns: 50, seed: 2 }).map((s) => s.decision.action?.kind))).toEqual(
      new Set(['power-off', 'taint']),
    );
  });

  for (const { name, holds } of properties) {
    it(name, () => {
      fc.assert(
        fc.property(contextArb, (ctx) => holds(ctx, decideActing(ctx))),
        { numRuns: 300 },
      );
    });
  }

  it.each(ACTING_TABLE.slice(0, -1).map((rule) => rule.id))(
    'needs rule %s: without it, a property fails',
    (ruleId) => {
      const table = ACTING_TABLE.filter((rule) => rule.id !== ruleId);
      expect(
        firstBroken((ctx) => decideActing(ctx, table)),
        `nothing noticed the missing rule ${ruleId}`,
      ).not.toBeNull();
    },
  );

  it('records the refusal as a step of the run, at the time the step observed', () => {
    const [ctx] = fc.sample(
      contextArb.filter(
        (c) => c.claim?.granted === false && c.claim.reason === 'in-flight-limit' && !committedBefore(c),
      ),
      { numRuns: 1, seed: 3 },
    );
    if (!ctx) throw new Error('no refusal generated');
    const refused = decideActing(ctx);
    expect(refused.history.steps).toHaveLength(ctx.history.steps.length + 1);
    expect(refused.history.steps.at(-1)).toMatchObject({ at: t(20), rule: 'in-flight-limit-before-commit' });
  });
});
