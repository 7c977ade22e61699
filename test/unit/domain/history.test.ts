import { describe, expect, it } from 'vitest';
import {
  ActionKind,
  assertHistory,
  MAX_STEPS,
  proofFrom,
  record,
  startRun,
  ValidationError,
} from '../../../lib/domain/index.js';
import {
  committedHistory,
  freshHistory,
  INSTANCE,
  observe,
  provenHistory,
  RUN,
  stopped,
  t,
  taintedNode,
} from './support/fixtures.js';

const powerOff = {
  kind: ActionKind.PowerOff,
  instance: { provider: 'aws', instanceId: INSTANCE },
  dryRun: false,
  skipOsShutdown: true,
  allowTerminate: false,
} as const;

describe('startRun', () => {
  it('starts with nothing decided, requested or proven', () => {
    expect(startRun(RUN, t(0))).toEqual({
      runId: RUN,
      startedAt: t(0),
      target: null,
      decidedToFenceAt: null,
      isolation: null,
      storageBefore: null,
      storageProof: null,
      powerOffRequestedAt: null,
      storageFenceRequestedAt: null,
      proofOfOff: null,
      taintedAt: null,
      steps: [],
    });
  });

  it('survives a JSON round trip unchanged (Step Functions carries it)', () => {
    const history = record(
      committedHistory(),
      { phase: 'Taint', action: null, reason: null },
      observe({ at: 20, power: stopped(20) }),
    );
    expect(JSON.parse(JSON.stringify(history))).toEqual(history);
  });
});

describe('record', () => {
  it('commits to the node and instance on the first PowerOff step, at the latest time it observed', () => {
    const observation = observe({ at: 10, power: { observedAt: t(11) } });
    const next = record(freshHistory(), { phase: 'PowerOff', action: powerOff, reason: null }, observation);
    expect(next).toMatchObject({
      target: { node: 'worker-1', nodeUid: 'uid-worker-1', provider: 'aws', instanceId: INSTANCE },
      decidedToFenceAt: t(11),
      powerOffRequestedAt: t(10),
      proofOfOff: null,
    });
  });

  it('commits at the step’s own time when the provider did not answer', () => {
    const observation = observe({ at: 10, power: { name: 'ProviderApiError', message: 'timeout' } });
    expect(
      record(freshHistory(), { phase: 'ConfirmOff', action: null, reason: null }, observation),
    ).toMatchObject({
      target: { instanceId: INSTANCE },
      decidedToFenceAt: t(10),
    });
  });

  it('commits to the launch time the provider reported, so a later start of the machine can be told from it', () => {
    const next = record(
      freshHistory(),
      { phase: 'PowerOff', action: powerOff, reason: null },
      observe({ at: 10, power: { launchTime: t(-86_400) } }),
    );
    expect(next.target?.launchTime).toBe(t(-86_400));
  });

  it('names no launch time when the provider reported none, and so survives a JSON round trip exactly', () => {
    const next = record(
      freshHistory(),
      { phase: 'PowerOff', action: powerOff, reason: null },
      observe({ at: 10, power: { launchTime: undefined } }),
    );
    expect(next.target).not.toHaveProperty('launchTime');
    expect(JSON.parse(JSON.stringify(next))).toStrictEqual(next);
  });

  it('commits to nothing without a node or a resolved instance (target and time go together)', () => {
    const unresolved = { resolved: false, problem: 'unparseable', detail: 'bad' } as const;
    for (const observation of [observe({ node: null }), observe({ instance: unresolved })]) {
      const next = record(freshHistory(), { phase: 'ConfirmOff', action: null, reason: null }, observation);
      expect(next).toMatchObject({ target: null, decidedToFenceAt: null });
      expect(() => assertHistory(next)).not.toThrow();
    }
  });

  it('records no taint time for a step that saw no node', () => {
    const next = record(
      provenHistory(),
      { phase: 'Drain', action: null, reason: null },
      observe({ at: 50, node: null }),
    );
    expect(next.taintedAt).toBeNull();
  });

  it('records which rule decided each step', () => {
    const next = record(
      freshHistory(),
      { phase: 'Assess', action: null, reason: null, rule: 'lease-stale' },
      observe(),
    );
    expect(next.steps.at(-1)).toEqual({
      at: t(0),
      phase: 'Assess',
      action: null,
      reason: null,
      rule: 'lease-stale',
    });
    const unnamed = record(freshHistory(), { phase: 'Assess', action: null, reason: null }, observe());
    expect(unnamed.steps.at(-1)?.rule).toBeNull();
  });

  it('does not commit on an Assess or dry-run step', () => {
    const dry = { ...powerOff, dryRun: true };
    const a = record(freshHistory(), { phase: 'Assess', action: null, reason: null }, observe());
    const b = record(freshHistory(), { phase: 'DryRunReported', action: dry, reason: null }, observe());
    for (const next of [a, b]) {
      expect(next.decidedToFenceAt).toBeNull();
      expect(next.powerOffRequestedAt).toBeNull();
    }
  });

  it('never takes the committing step’s own observation as proof, even when it shows the instance off', () => {
    const next = record(
      freshHistory(),
      { phase: 'ConfirmOff', action: null, reason: null },
      observe({ power: stopped(0) }),
    );
    expect(next.decidedToFenceAt).toBe(t(0));
    expect(next.proofOfOff).toBeNull();
  });

  it('records the first off observation made after the decision as proof, and keeps it', () => {
    const proven = record(
      committedHistory(),
      { phase: 'Taint', action: null, reason: null },
      observe({ at: 20, power: stopped(20) }),
    );
    expect(proven.proofOfOff).toMatchObject({ state: 'stopped', observedAt: t(20) });
    const later = record(
      proven,
      { phase: 'Drain', action: null, reason: null },
      observe({ at: 30, power: stopped(30) }),
    );
    expect(later.proofOfOff?.observedAt).toBe(t(20));
  });

  it.each(['stopping', 'shutting-down', 'unknown', 'running'] as const)(
    'does not take %s as proof',
    (state) => {
      expect(proofFrom(committedHistory(), observe({ at: 20, power: { state } }))).toBeNull();
    },
  );

  it('does not take an API error as proof', () => {
    expect(
      proofFrom(
        committedHistory(),
        observe({ at: 20, power: { name: 'ProviderApiError', message: 'timeout' } }),
      ),
    ).toBeNull();
  });

  it.each(['terminated', 'not-found'] as const)('takes %s as proof', (state) => {
    expect(proofFrom(committedHistory(), observe({ at: 20, power: { state } }))).not.toBeNull();
  });

  it('takes only an off observation made strictly after the decision (SAFETY.md rule 1)', () => {
    // committedHistory decided at t(10): an observation made at that very instant predates nothing.
    expect(proofFrom(committedHistory(), observe({ at: 10, power: stopped(10) }))).toBeNull();
    expect(proofFrom(committedHistory(), observe({ at: 11, power: stopped(11) }))).toMatchObject({
      observedAt: t(11),
    });
  });

  it('takes no proof about another machine than the run committed to (SAFETY.md rules 1 and 3)', () => {
    const other = 'i-0ffffffffffffffff';
    // The provider answered about another instance than the node names...
    expect(
      proofFrom(committedHistory(), observe({ at: 20, power: { ...stopped(20), instanceId: other } })),
    ).toBeNull();
    // ...or the node now names another instance, whatever the provider said about it.
    const renamed = observe({ at: 20, power: stopped(20) });
    const instance = renamed.instance?.resolved ? renamed.instance : null;
    if (instance === null) throw new Error('fixture resolves the instance');
    const moved = { ...renamed, instance: { ...instance, ref: { ...instance.ref, instanceId: other } } };
    expect(proofFrom(committedHistory(), moved)).toBeNull();
  });

  it('takes no proof without both a target and a decision time, or without a resolved instance', () => {
    const off = observe({ at: 20, power: stopped(20) });
    expect(proofFrom({ ...committedHistory(), target: null }, off)).toBeNull();
    expect(proofFrom({ ...committedHistory(), decidedToFenceAt: null }, off)).toBeNull();
    const unresolved = { resolved: false, problem: 'unparseable', detail: 'bad' } as const;
    expect(proofFrom(committedHistory(), observe({ at: 20, instance: unresolved }))).toBeNull();
  });

  it('records when the taint is first seen after the proof', () => {
    const proven = record(
      committedHistory(),
      { phase: 'Taint', action: null, reason: null },
      observe({ at: 20, power: stopped(20) }),
    );
    const tainted = record(
      proven,
      { phase: 'Drain', action: null, reason: null },
      observe({ at: 25, power: stopped(25), node: taintedNode() }),
    );
    expect(tainted.taintedAt).toBe(t(25));
  });

  it(`keeps only the last ${MAX_STEPS} steps`, () => {
    let history = freshHistory();
    for (let i = 0; i < MAX_STEPS + 5; i += 1) {
      history = record(history, { phase: 'Assess', action: null, reason: null }, observe({ at: i }));
    }
    expect(history.steps).toHaveLength(MAX_STEPS);
    expect(history.steps[0]?.at).toBe(t(5));
  });
});

describe('assertHistory (SAFETY.md rules 1 and 10)', () => {
  it('accepts the histories a run produces', () => {
    for (const history of [freshHistory(), committedHistory(), provenHistory()]) {
      expect(() => assertHistory(history)).not.toThrow();
    }
  });

  it.each([
    [
      'a proof without a decision',
      { ...provenHistory(), target: null, decidedToFenceAt: null },
      'proofOfOff was not observed after decidedToFenceAt',
    ],
    [
      'a proof older than the decision',
      { ...provenHistory(), decidedToFenceAt: t(100) },
      'proofOfOff was not observed after decidedToFenceAt',
    ],
    [
      'a proof observed at the very time of the decision',
      { ...provenHistory(), decidedToFenceAt: t(40) },
      'proofOfOff was not observed after decidedToFenceAt',
    ],
    [
      'a proof that is not off',
      { ...provenHistory(), proofOfOff: { instanceId: INSTANCE, state: 'stopping', observedAt: t(40) } },
      'proofOfOff shows stopping, which is not off',
    ],
    [
      'a proof about another instance',
      { ...provenHistory(), proofOfOff: { instanceId: 'i-0other', state: 'stopped', observedAt: t(40) } },
      'proofOfOff is about another instance',
    ],
    [
      'a taint time without proof',
      { ...committedHistory(), taintedAt: t(50) },
      'taintedAt without any proof',
    ],
    ['an empty run id', { ...freshHistory(), runId: '' }, 'runId is empty'],
    ['a target without a decision time', { ...committedHistory(), decidedToFenceAt: null }, 'go together'],
    ['a decision time without a target', { ...committedHistory(), target: null }, 'go together'],
  ] as const)('rejects %s, saying why', (_, history, why) => {
    expect(() => assertHistory(history)).toThrow(ValidationError);
    expect(() => assertHistory(history)).toThrow(`inconsistent run history: `);
    expect(() => assertHistory(history)).toThrow(why);
  });

  it('names every problem at once', () => {
    const history = { ...committedHistory(), runId: '', decidedToFenceAt: null, taintedAt: t(50) };
    expect(() => assertHistory(history)).toThrow(
      'inconsistent run history: runId is empty; target and decidedToFenceAt go together; taintedAt without any proof',
    );
  });
});
