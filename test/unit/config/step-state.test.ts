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

  it('accepts the history of a run that fences storage: a bare-metal target with no provider, the blocklist proof', () => {
    const entry = { kind: 'range', entry: '10.0.0.12/32', source: 'InternalIP 10.0.0.12' };
    const history = {
      ...startRun(first.run.id, first.run.startedAt),
      target: { node: 'node-a', nodeUid: 'uid-a', provider: null, instanceId: '' },
      decidedToFenceAt: '2026-02-02T17:00:01.000Z',
      isolation: { machine: false, storage: true, watch: false },
      storageBefore: ['10.0.0.99/32'],
      storageFenceRequestedAt: '2026-02-02T17:00:01.000Z',
      storageProof: {
        node: 'node-a',
        observedAt: '2026-02-02T17:00:02.000Z',
        expected: [entry],
        found: [{ ...entry, until: '2026-02-09T17:00:01.000Z' }],
        missing: [],
        related: [],
        confirmed: true,
      },
    };

    expect(stepStateSchema.parse({ ...first, history }).history).toEqual(history);
  });

  it('reads a committed history written before storage fencing as a run committed to its machine alone', () => {
    const {
      isolation: _i,
      storageBefore: _b,
      storageProof: _p,
      storageFenceRequestedAt: _r,
      ...older
    } = {
      ...startRun(first.run.id, first.run.startedAt),
      target: { node: 'node-a', nodeUid: 'uid-a', provider: 'aws', instanceId: 'i-0123456789abcdef0' },
      decidedToFenceAt: '2026-02-02T17:00:01.000Z',
    };

    expect(stepStateSchema.parse({ ...first, history: older }).history).toMatchObject({
      isolation: { machine: true, storage: false, watch: false },
      storageBefore: [],
      storageProof: null,
      storageFenceRequestedAt: null,
    });
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
