/**
 * The run's deadlines (SAFETY.md rules 1 and 9): which clock runs at each stage, that a step made exactly
 * at the deadline still waits, and what the failure names.
 */
import { describe, expect, it } from 'vitest';
import type { RunHistory } from '../../../../lib/domain/index.js';
import { Reason } from '../../../../lib/domain/index.js';
import { fenceContext } from '../../../../lib/domain/rules/context.js';
import { deadlineOf, expired, waitOrExpire } from '../../../../lib/domain/rules/deadline.js';
import {
  aRequest,
  committedHistory,
  freshHistory,
  observe,
  provenHistory,
  stopped,
  t,
  taintedHistory,
} from '../support/fixtures.js';

const ctx = (at: number, history: RunHistory, power = {}) =>
  fenceContext(observe({ at, power: { ...power, observedAt: t(at) } }), aRequest(), history);
const ms = (seconds: number) => Date.parse(t(seconds));

describe('deadlineOf', () => {
  it('gives the provider 300 s from the start, the power-off 300 s from the decision, the drain 600 s', () => {
    expect(deadlineOf(ctx(0, freshHistory()))).toEqual({ at: ms(300), reason: Reason.ProviderApiError });
    expect(deadlineOf(ctx(20, committedHistory()))).toEqual({
      at: ms(310),
      reason: Reason.PowerOffNotConfirmed,
    });
    expect(deadlineOf(ctx(45, provenHistory(), stopped(45)))).toEqual({
      at: ms(640),
      reason: Reason.DrainNotComplete,
    });
    expect(deadlineOf(ctx(60, taintedHistory(), stopped(60)))).toEqual({
      at: ms(650),
      reason: Reason.DrainNotComplete,
    });
  });
});

describe('expired', () => {
  it('still waits at the deadline itself, and fails a second after it, saying when it was', () => {
    expect(expired(ctx(300, freshHistory()))).toBeNull();
    expect(expired(ctx(301, freshHistory()), ['asked twice'])).toMatchObject({
      phase: 'Failed',
      action: null,
      reason: 'ProviderApiError',
      evidence: ['asked twice', `deadline was ${t(300)}`],
    });
  });

  it('names the cause only for the provider’s own deadline, not once committed', () => {
    expect(expired(ctx(301, freshHistory()), [], Reason.ProviderThrottled)?.reason).toBe('ProviderThrottled');
    expect(expired(ctx(311, committedHistory()), [], Reason.ProviderThrottled)?.reason).toBe(
      'PowerOffNotConfirmed',
    );
  });
});

describe('waitOrExpire', () => {
  it('waits with the message, its evidence and reason until the deadline, then fails quoting the message', () => {
    expect(
      waitOrExpire(ctx(10, freshHistory()), 'Assess', 10, 'asking again', ['e1'], Reason.ProviderThrottled),
    ).toEqual({
      kind: 'outcome',
      phase: 'Assess',
      action: null,
      reason: 'ProviderThrottled',
      message: 'asking again',
      evidence: ['e1'],
      waitSeconds: 10,
    });
    expect(waitOrExpire(ctx(301, freshHistory()), 'Assess', 10, 'asking again')).toMatchObject({
      phase: 'Failed',
      reason: 'ProviderApiError',
      evidence: ['asking again', `deadline was ${t(300)}`],
    });
    expect(waitOrExpire(ctx(10, freshHistory()), 'Assess', 10, 'asking again')).toMatchObject({
      reason: null,
      evidence: [],
    });
  });
});
