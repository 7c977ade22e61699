/**
 * Launch times at their provider's precision (SAFETY.md rules 2 and 6): a start known only to the minute
 * of the decision stops the fence, and never proves a power cycle after the fence.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Compliant, type PowerEvidence, ValidationError } from '../../../lib/domain/index.js';
import { launchWindow, possiblyLaunchedAfter, surelyLaunchedAfter } from '../../../lib/domain/launch-time.js';
import { instanceNotStartedAgain } from '../../../lib/domain/rules/started-again.js';
import { powerCycled } from '../../../lib/domain/rules/unfence.js';
import {
  anUnfenceRequest,
  aRequest,
  checkFence,
  checkUnfence,
  committedHistory,
  OUR_RECORD,
  T0,
  t,
  taintedNode,
} from './support/fixtures.js';

const MINUTE = 60_000;
const DECIDED_AT = Date.parse(t(10));
const FENCED_AT = Date.parse(OUR_RECORD.fencedAt);

/** ECS writes a start time as its minute: `2026-03-01T10:00Z`. */
const toMinute = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16)}Z`;

const power = (launchTime: string, launchTimePrecision?: PowerEvidence['launchTimePrecision']) =>
  ({ launchTime, ...(launchTimePrecision ? { launchTimePrecision } : {}) }) as const;

/** A true start within a few minutes either side of `around`, to the millisecond. */
const startNear = (around: number) => fc.integer({ min: around - 3 * MINUTE, max: around + 3 * MINUTE });

describe('a launch time known to the minute', () => {
  it('is a window holding every instant of that minute', () => {
    fc.assert(
      fc.property(startNear(T0), (start) => {
        const window = launchWindow({
          ...power(toMinute(start), 'minute'),
          instanceId: 'i',
          state: 'running',
          observedAt: t(0),
        });
        expect(window).not.toBeNull();
        expect(window?.earliest).toBeLessThanOrEqual(start);
        expect(window?.latest).toBeGreaterThanOrEqual(start);
        expect((window?.latest ?? 0) - (window?.earliest ?? 0)).toBe(MINUTE - 1);
      }),
    );
  });

  it('is possibly after an instant whenever the true start was, and surely after it only when the true start was', () => {
    fc.assert(
      fc.property(startNear(T0), fc.integer({ min: T0 - 3 * MINUTE, max: T0 + 3 * MINUTE }), (start, at) => {
        const evidence = {
          ...power(toMinute(start), 'minute'),
          instanceId: 'i',
          state: 'running',
          observedAt: t(0),
        } as const;
        if (start > at) expect(possiblyLaunchedAfter(evidence, at)).toBe(true);
        if (surelyLaunchedAfter(evidence, at)) expect(start).toBeGreaterThan(at);
      }),
    );
  });

  it('refuses a precision it does not know, rather than read the time as exact', () => {
    const evidence = {
      launchTime: t(0),
      launchTimePrecision: 'hour',
      instanceId: 'i',
      state: 'running',
      observedAt: t(0),
    };
    expect(() => launchWindow(evidence as unknown as PowerEvidence)).toThrow(ValidationError);
    expect(() => launchWindow(evidence as unknown as PowerEvidence)).toThrow(
      'launchTimePrecision is not one of millisecond, second, minute: hour',
    );
  });
});

describe('the window of a launch time', () => {
  const SECOND = 1000;
  /** Any instant from 1900 to 2100, to the millisecond (before 1970 too: its remainders are negative). */
  const anyInstant = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) });
  const windowOf = (ms: number, launchTimePrecision?: PowerEvidence['launchTimePrecision']) =>
    launchWindow({
      ...power(new Date(ms).toISOString(), launchTimePrecision),
      instanceId: 'i',
      state: 'running',
      observedAt: t(0),
    });

  it('is the whole unit the written time falls in, whatever fraction of it the time was written with', () => {
    fc.assert(
      fc.property(
        anyInstant,
        fc.constantFrom(['second', SECOND] as const, ['minute', MINUTE] as const),
        (ms, [precision, unit]) => {
          const window = windowOf(ms, precision);
          expect(window).not.toBeNull();
          const { earliest = 0, latest = 0 } = window ?? {};
          expect(earliest).toBeLessThanOrEqual(ms);
          expect(latest).toBeGreaterThanOrEqual(ms);
          expect(latest - earliest).toBe(unit - 1);
          expect(new Date(earliest).getUTCMilliseconds()).toBe(0);
          if (precision === 'minute') expect(new Date(earliest).getUTCSeconds()).toBe(0);
        },
      ),
    );
  });

  it('is the written instant alone without a precision', () => {
    fc.assert(
      fc.property(anyInstant, (ms) => {
        expect(windowOf(ms)).toEqual({ earliest: ms, latest: ms });
      }),
    );
  });

  it('starts a time written to the second mid-second at that second', () => {
    expect(windowOf(Date.parse('2026-03-01T09:58:07.600Z'), 'second')).toEqual({
      earliest: Date.parse('2026-03-01T09:58:07.000Z'),
      latest: Date.parse('2026-03-01T09:58:07.999Z'),
    });
  });
});

describe('instance-not-started-again with a start time read to the minute (SAFETY.md rule 2)', () => {
  it('refuses whenever the machine was truly started after the decision', () => {
    fc.assert(
      fc.property(fc.integer({ min: DECIDED_AT + 1, max: DECIDED_AT + 3 * MINUTE }), (start) => {
        const spec = { at: 200, power: power(toMinute(start), 'minute') };
        expect(checkFence(instanceNotStartedAgain, spec, aRequest(), committedHistory())).toMatchObject({
          phase: 'Refused',
          reason: 'InstanceStartedAgain',
        });
      }),
    );
  });

  it('refuses a start in the minute of the decision, though that minute began before it', () => {
    const spec = { at: 20, power: power(toMinute(DECIDED_AT), 'minute') };
    expect(checkFence(instanceNotStartedAgain, spec, aRequest(), committedHistory())).toMatchObject({
      reason: 'InstanceStartedAgain',
      evidence: [`launched ${toMinute(DECIDED_AT)} (to the minute), possibly after the decision at ${t(10)}`],
    });
  });

  it('is compliant for a start in an earlier minute than the decision', () => {
    const spec = { at: 20, power: power(toMinute(DECIDED_AT - MINUTE), 'minute') };
    expect(checkFence(instanceNotStartedAgain, spec, aRequest(), committedHistory())).toEqual(Compliant);
  });

  it('reads the same instant without a precision as exact, and compliant at the decision', () => {
    const spec = { at: 20, power: power(new Date(DECIDED_AT - (DECIDED_AT % MINUTE)).toISOString()) };
    expect(checkFence(instanceNotStartedAgain, spec, aRequest(), committedHistory())).toEqual(Compliant);
  });
});

describe('power-cycled with a start time read to the minute (SAFETY.md rule 6)', () => {
  const running = (launchTime: string, launchTimePrecision?: PowerEvidence['launchTimePrecision']) => ({
    node: { ...taintedNode(), ready: 'True' as const },
    power: { state: 'running' as const, observedAt: t(600), ...power(launchTime, launchTimePrecision) },
  });

  it('never reads a start that may have been before the fence as a power cycle', () => {
    fc.assert(
      fc.property(fc.integer({ min: FENCED_AT - 3 * MINUTE, max: FENCED_AT + 3 * MINUTE }), (start) => {
        const verdict = checkUnfence(powerCycled, running(toMinute(start), 'minute'), anUnfenceRequest());
        if (verdict === Compliant) expect(start).toBeGreaterThan(FENCED_AT);
        if (Math.floor(start / MINUTE) > Math.floor(FENCED_AT / MINUTE)) expect(verdict).toEqual(Compliant);
      }),
    );
  });

  it('waits on a start in the minute of the fence, though that minute ends after it', () => {
    const verdict = checkUnfence(powerCycled, running(toMinute(FENCED_AT + 1000), 'minute'));
    expect(verdict).toMatchObject({ reason: 'NoPowerCycleSinceFence' });
    expect(checkUnfence(powerCycled, running(new Date(FENCED_AT + 1000).toISOString()))).toEqual(Compliant);
  });
});

describe('instance-not-started-again on the provider’s own clock (SAFETY.md rule 2)', () => {
  /** The provider's launch time as it reported it when the run decided: a day before. */
  const LAUNCHED = new Date(T0 - 86_400_000).toISOString();
  /** A run that decided while the fencer's clock ran `skew` ms fast: its decision time is that far ahead. */
  const skewedDecision = (skew: number) => {
    const history = committedHistory();
    const decidedAt = new Date(DECIDED_AT + skew).toISOString();
    return {
      ...history,
      target: history.target ? { ...history.target, launchTime: LAUNCHED } : null,
      decidedToFenceAt: decidedAt,
      powerOffRequestedAt: decidedAt,
    };
  };

  it('refuses a new launch time, however fast the fencer’s clock ran when it decided', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3_600_000 }),
        fc.integer({ min: 1, max: 3 * MINUTE }),
        (skew, after) => {
          // Started again `after` ms after the true decision: before the skewed decision time, for any skew above it.
          const spec = { at: 200, power: power(new Date(DECIDED_AT + after).toISOString()) };
          expect(checkFence(instanceNotStartedAgain, spec, aRequest(), skewedDecision(skew))).toMatchObject({
            phase: 'Refused',
            reason: 'InstanceStartedAgain',
          });
        },
      ),
    );
  });

  it('is compliant while the provider reports the launch time it reported at the decision', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3_600_000 }), (skew) => {
        const spec = { at: 200, power: power(LAUNCHED) };
        expect(checkFence(instanceNotStartedAgain, spec, aRequest(), skewedDecision(skew))).toEqual(
          Compliant,
        );
      }),
    );
  });
});
