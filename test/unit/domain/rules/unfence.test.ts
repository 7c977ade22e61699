import { describe, expect, it } from 'vitest';
import { Compliant, decideUnfence, NotApplicable } from '../../../../lib/domain/index.js';
import {
  nodeReadyAgain,
  powerCycled,
  removeTaint,
  staleRecordCleared,
  taintOwned,
  unfenceDryRun,
  unfenceInstanceOwned,
  unfenceInstanceResolved,
  unfenceNodeExists,
} from '../../../../lib/domain/rules/unfence.js';
import {
  anUnfenceRequest,
  checkUnfence,
  fault,
  freshHistory,
  INSTANCE,
  OUR_RECORD,
  OUR_TAINT,
  observe,
  RUN,
  stopped,
  THEIR_TAINT,
  t,
  taintedNode,
} from '../support/fixtures.js';

/** Back after a power cycle: Ready, running, launched after the fence at t(45). */
const back = {
  at: 600,
  node: taintedNode({ ready: 'True', resourceVersion: '2000' }),
  power: { state: 'running', launchTime: t(500) },
} as const;

describe('stale-record-cleared (SAFETY.md rule 6)', () => {
  const stale = { ready: 'True', outOfServiceTaints: [], fenceRecord: OUR_RECORD } as const;

  it('does not apply while the recorded taint is on', () => {
    expect(checkUnfence(staleRecordCleared, back)).toEqual(NotApplicable);
  });

  it('clears a record whose taint was removed by hand, conditionally on the node as read', () => {
    expect(checkUnfence(staleRecordCleared, { ...back, node: stale })).toMatchObject({
      phase: 'UnfenceAssess',
      reason: 'StaleFenceRecord',
      action: { kind: 'clear-fence-record', expectedResourceVersion: '1000', fenceRunId: RUN },
    });
  });

  it('clears it too when someone added an identical-looking taint since, and adopts nothing', () => {
    const node = { ...stale, outOfServiceTaints: [THEIR_TAINT] };
    expect(checkUnfence(staleRecordCleared, { ...back, node })).toMatchObject({
      action: { kind: 'clear-fence-record' },
    });
  });

  it('only says so in a dry run', () => {
    expect(
      checkUnfence(staleRecordCleared, { ...back, node: stale }, anUnfenceRequest({ dryRun: true })),
    ).toMatchObject({ phase: 'DryRunReported', action: null, reason: 'StaleFenceRecord' });
  });
});

describe('taint-owned (SAFETY.md rules 6 and 7)', () => {
  it('does not apply while the fencer’s exact taint is on', () => {
    expect(checkUnfence(taintOwned, back)).toEqual(NotApplicable);
  });

  it('reports Unfenced when no out-of-service taint is left', () => {
    expect(checkUnfence(taintOwned, { ...back, node: { ready: 'True' } })).toMatchObject({
      phase: 'Unfenced',
      action: null,
    });
  });

  it.each([
    ['a taint with no record of ours', { outOfServiceTaints: [OUR_TAINT], fenceRecord: null }],
    ['an identical-looking taint added later', { outOfServiceTaints: [THEIR_TAINT], fenceRecord: null }],
    ['another value', { outOfServiceTaints: [{ ...OUR_TAINT, value: 'maintenance' }], fenceRecord: null }],
  ])('refuses to remove %s', (_, node) => {
    expect(checkUnfence(taintOwned, { ...back, node: { ready: 'True', ...node } })).toMatchObject({
      phase: 'Refused',
      reason: 'TaintNotOwned',
    });
  });
});

describe('unfence-instance-resolved (SAFETY.md rule 10)', () => {
  it('is compliant when the providerID resolves', () => {
    expect(checkUnfence(unfenceInstanceResolved, back)).toEqual(Compliant);
  });

  it('refuses when the providerID cannot be parsed', () => {
    const instance = { resolved: false, problem: 'unparseable', detail: 'bad' } as const;
    expect(checkUnfence(unfenceInstanceResolved, { ...back, instance })).toMatchObject({
      reason: 'ProviderIdUnparseable',
    });
  });
});

describe('node-ready-again (SAFETY.md rule 6)', () => {
  it('does not apply once the node is Ready', () => {
    expect(checkUnfence(nodeReadyAgain, back)).toEqual(NotApplicable);
  });

  it('waits while the node is not Ready yet', () => {
    expect(checkUnfence(nodeReadyAgain, { ...back, node: taintedNode() })).toMatchObject({
      phase: 'UnfenceAssess',
      action: null,
      reason: 'NodeNotReadyYet',
      waitSeconds: 15,
    });
  });

  it('refuses once it has waited longer than asked', () => {
    expect(checkUnfence(nodeReadyAgain, { ...back, at: 1801, node: taintedNode() })).toMatchObject({
      phase: 'Refused',
      reason: 'NodeNotReadyYet',
    });
  });
});

describe('unfence-instance-owned (SAFETY.md rule 3)', () => {
  it('is compliant for the cluster’s instance', () => {
    expect(checkUnfence(unfenceInstanceOwned, back)).toEqual(Compliant);
  });

  it('refuses evidence from an instance of another cluster', () => {
    const ownership = { owned: false, reason: 'wrong-cluster', detail: 'tag missing' } as const;
    expect(checkUnfence(unfenceInstanceOwned, { ...back, ownership })).toMatchObject({
      reason: 'InstanceNotOwned',
    });
  });

  it('waits when ownership cannot be checked', () => {
    expect(checkUnfence(unfenceInstanceOwned, { ...back, ownership: fault() })).toMatchObject({
      reason: 'ProviderApiError',
    });
  });
});

describe('power-cycled (SAFETY.md rule 6)', () => {
  it('is compliant when the instance runs from a boot later than the fence', () => {
    expect(checkUnfence(powerCycled, back)).toEqual(Compliant);
  });

  it('keeps the taint when the node came back without a power cycle', () => {
    expect(
      checkUnfence(powerCycled, { ...back, power: { state: 'running', launchTime: t(-86_400) } }),
    ).toMatchObject({
      phase: 'UnfenceAssess',
      action: null,
      reason: 'NoPowerCycleSinceFence',
    });
  });

  it('keeps the taint when the provider gives no launch time', () => {
    expect(
      checkUnfence(powerCycled, { ...back, power: { state: 'running', launchTime: undefined } }),
    ).toMatchObject({
      reason: 'NoPowerCycleSinceFence',
    });
  });

  it('keeps the taint while the instance is not running', () => {
    expect(
      checkUnfence(powerCycled, { ...back, power: { ...stopped(600), launchTime: t(500) } }),
    ).toMatchObject({
      reason: 'NoPowerCycleSinceFence',
    });
  });

  it('waits when the provider API fails', () => {
    expect(checkUnfence(powerCycled, { ...back, power: fault() })).toMatchObject({
      reason: 'ProviderApiError',
    });
  });

  it('refuses a power cycle of another machine than the one the record names', () => {
    const node = taintedNode({
      ready: 'True',
      fenceRecord: { ...OUR_RECORD, instanceId: 'i-0fenced0000000000' },
    });
    expect(checkUnfence(powerCycled, { ...back, node })).toMatchObject({
      phase: 'Refused',
      reason: 'InstanceMismatch',
    });
  });
});

describe('unfence-dry-run (SAFETY.md rule 8)', () => {
  it('does not apply to a real run', () => {
    expect(checkUnfence(unfenceDryRun, back)).toEqual(NotApplicable);
  });

  it('reports what it would remove and removes nothing', () => {
    expect(checkUnfence(unfenceDryRun, back, anUnfenceRequest({ dryRun: true }))).toMatchObject({
      phase: 'DryRunReported',
      action: null,
    });
  });
});

describe('remove-taint (SAFETY.md rule 6)', () => {
  it('does not apply to a node that is not there, nor to one without its fence record', () => {
    expect(checkUnfence(removeTaint, { ...back, node: null })).toEqual(NotApplicable);
    expect(
      checkUnfence(removeTaint, { ...back, node: { ready: 'True', outOfServiceTaints: [OUR_TAINT] } }),
    ).toEqual(NotApplicable);
  });

  it('removes exactly the fencer’s taint, conditionally on the observed resourceVersion', () => {
    expect(checkUnfence(removeTaint, back)).toMatchObject({
      phase: 'Unfence',
      action: { kind: 'remove-taint', expectedResourceVersion: '2000', fenceRunId: RUN, taint: OUR_TAINT },
    });
  });

  it('names only its own taint when someone else’s NoSchedule one sits beside it', () => {
    const node = taintedNode({
      ready: 'True',
      outOfServiceTaints: [OUR_TAINT, { ...THEIR_TAINT, effect: 'NoSchedule' }],
    });
    expect(checkUnfence(removeTaint, { ...back, node })).toMatchObject({ action: { taint: OUR_TAINT } });
  });
});

describe('decideUnfence', () => {
  it('reports Unfenced once it removed its own taint, leaving a NoSchedule one someone else added', () => {
    const theirs = { ...THEIR_TAINT, effect: 'NoSchedule' };
    const node = taintedNode({
      ready: 'True',
      resourceVersion: '2000',
      outOfServiceTaints: [OUR_TAINT, theirs],
    });
    const first = decideUnfence(observe({ ...back, node }), anUnfenceRequest(), freshHistory());
    expect(first).toMatchObject({ action: { kind: 'remove-taint', taint: OUR_TAINT } });
    const after = {
      ready: 'True',
      resourceVersion: '2001',
      outOfServiceTaints: [theirs],
      fenceRecord: null,
    } as const;
    const second = decideUnfence(
      observe({ ...back, at: 601, node: after }),
      anUnfenceRequest(),
      first.history,
    );
    expect(second).toMatchObject({ phase: 'Unfenced', done: true, action: null });
    expect(second.message).toContain('not the fencer');
  });

  it('clears a stale record, then refuses the taint someone else added since (it stays)', () => {
    const node = { ready: 'True', outOfServiceTaints: [THEIR_TAINT], fenceRecord: OUR_RECORD } as const;
    const first = decideUnfence(observe({ ...back, node }), anUnfenceRequest(), freshHistory());
    expect(first).toMatchObject({ action: { kind: 'clear-fence-record' }, done: false });
    const second = decideUnfence(
      observe({ ...back, at: 601, node: { ...node, fenceRecord: null } }),
      anUnfenceRequest(),
      first.history,
    );
    expect(second).toMatchObject({ phase: 'Refused', reason: 'TaintNotOwned', action: null });
  });

  it('removes the taint, then reports Unfenced', () => {
    const first = decideUnfence(observe(back), anUnfenceRequest(), freshHistory());
    expect(first).toMatchObject({
      phase: 'Unfence',
      done: false,
      action: { kind: 'remove-taint', node: 'worker-1' },
    });
    const second = decideUnfence(
      observe({ ...back, at: 601, node: { ready: 'True', resourceVersion: '2001' } }),
      anUnfenceRequest(),
      first.history,
    );
    expect(second).toMatchObject({ phase: 'Unfenced', done: true, action: null });
    expect(second.history.steps.map((s) => s.phase)).toEqual(['Unfence', 'Unfenced']);
  });

  it('never removes a taint while the instance is the one that was fenced and never restarted', () => {
    const decision = decideUnfence(
      observe({ ...back, power: { state: 'running', launchTime: t(-5) } }),
      anUnfenceRequest(),
      freshHistory(),
    );
    expect(decision.action).toBeNull();
    expect(decision.evidence.join('\n')).toContain(INSTANCE);
  });
});

describe('un-fence refusals no other test reaches', () => {
  it('refuses an unknown node, naming it', () => {
    expect(checkUnfence(unfenceNodeExists, { node: null })).toMatchObject({
      phase: 'Refused',
      reason: 'NodeNotFound',
      evidence: ['node worker-1 not found'],
    });
    expect(checkUnfence(unfenceNodeExists, back)).toEqual(Compliant);
  });

  it('refuses power evidence about another machine than the node names (SAFETY.md rule 3)', () => {
    const verdict = checkUnfence(unfenceInstanceOwned, { ...back, power: { instanceId: 'i-0other' } });
    expect(verdict).toMatchObject({
      phase: 'Refused',
      reason: 'InstanceMismatch',
      evidence: [`node names ${INSTANCE}, evidence i-0other`],
    });
  });

  it.each([
    ['wrong-account', 'WrongAccount'],
    ['wrong-region', 'WrongRegion'],
  ] as const)(
    'refuses an instance of the %s with its own reason and the provider’s detail',
    (why, reason) => {
      const ownership = { owned: false, reason: why, detail: `instance is in the ${why}` } as const;
      expect(checkUnfence(unfenceInstanceOwned, { ...back, ownership })).toMatchObject({
        phase: 'Refused',
        reason,
        evidence: [`instance is in the ${why}`],
      });
    },
  );

  it('keeps the taint when no instance is resolved: no evidence of a power cycle', () => {
    const instance = { resolved: false, problem: 'unparseable', detail: 'bad' } as const;
    expect(checkUnfence(powerCycled, { ...back, instance })).toMatchObject({
      phase: 'Refused',
      reason: 'NoPowerCycleSinceFence',
      action: null,
      evidence: ['no instance resolved'],
    });
  });
});
