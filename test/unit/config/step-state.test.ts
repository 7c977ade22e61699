/** The state the workflow carries between steps, as the Start state builds it and as a step returns it. */
import { describe, expect, it } from 'vitest';
import { stepStateSchema } from '../../../lib/config/step-state.js';
import { startRun } from '../../../lib/domain/history.js';

const first = {
  request: { node: 'node-a', cluster: 'prod' },
  run: { id: 'prod-node-a-0123456789abcdef', startedAt: '2026-02-02T17:00:00.000Z' },
  attempts: { count: 0 },
};

describe('stepStateSchema', () => {
  it('accepts the first state (no history, no decision: a Pass state cannot write null) and fills the request defaults', () => {
    const state = stepStateSchema.parse(first);

    expect(state).toMatchObject({
      history: null,
      decision: null,
      request: { dryRun: false, strategy: 'auto' },
    });
  });

  it('accepts the state a step returns', () => {
    const history = startRun(first.run.id, first.run.startedAt);
    const decision = {
      at: '2026-02-02T17:00:01.000Z',
      phase: 'PowerOff',
      done: false,
      outcome: 'in-progress',
      reason: null,
      message: 'Powering off.',
      waitSeconds: 5,
      rule: 'power-off',
      action: 'power-off',
      actionResult: 'i-0: stop requested',
      evidence: [],
      tookMs: 120,
    };

    expect(stepStateSchema.parse({ ...first, history, decision })).toMatchObject({ history, decision });
  });

  it.each([
    ['an unknown top-level key', { ...first, extra: 1 }],
    ['a run without a start time', { ...first, run: { id: 'x' } }],
    ['a negative step count', { ...first, attempts: { count: -1 } }],
    [
      'a history with an unknown phase',
      {
        ...first,
        history: {
          ...startRun('r', '2026-02-02T17:00:00Z'),
          steps: [{ at: '2026-02-02T17:00:00Z', phase: 'Nuked', action: null, reason: null, rule: null }],
        },
      },
    ],
    [
      'a fractional wait',
      {
        ...first,
        decision: {
          at: '2026-02-02T17:00:00Z',
          phase: 'Drain',
          done: false,
          outcome: 'in-progress',
          reason: null,
          message: '',
          waitSeconds: 2.5,
        },
      },
    ],
  ])('rejects %s', (_name, state) => {
    expect(stepStateSchema.safeParse(state).success).toBe(false);
  });
});
