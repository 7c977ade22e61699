/**
 * "Not found" is never a change of owner (SAFETY.md rules 1 and 3): the provider forgetting the instance
 * the run resolved, proved the cluster's and committed to is proof that it is off (ECS forgets a released
 * instance at once, EC2 a terminated one after about an hour); before the commitment it is its own
 * refusal, `InstanceNotFound`, never `WrongAccount`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Compliant, decide, type OwnershipVerdict, type RunHistory } from '../../../lib/domain/index.js';
import { instanceOwned } from '../../../lib/domain/rules/policy.js';
import { powerCycled } from '../../../lib/domain/rules/unfence.js';
import {
  aRequest,
  checkFence,
  checkUnfence,
  committedHistory,
  freshHistory,
  INSTANCE,
  observe,
  provenHistory,
  ROOT_DISK,
  type Spec,
  t,
  taintedNode,
} from './support/fixtures.js';

const NOT_FOUND: OwnershipVerdict = {
  owned: false,
  reason: 'not-found',
  detail: `instance ${INSTANCE} not found in region eu-west-1 of this account`,
};

/** What a provider answers for an instance it no longer knows. */
const gone = (at: number): Spec => ({
  at,
  ownership: NOT_FOUND,
  power: { state: 'not-found', providerState: undefined, launchTime: undefined, observedAt: t(at) },
  identity: null,
  disks: [],
});

describe('instance-owned with an instance the provider does not know', () => {
  it('refuses it with InstanceNotFound before the run committed, never WrongAccount', () => {
    expect(checkFence(instanceOwned, gone(5))).toMatchObject({
      phase: 'Refused',
      reason: 'InstanceNotFound',
      action: null,
    });
  });

  it('reads it as gone once the run committed to that very instance', () => {
    expect(checkFence(instanceOwned, gone(20), aRequest(), committedHistory())).toEqual(Compliant);
  });

  it('still refuses it after the commitment when the provider contradicts itself and reports it running', () => {
    const contradictory = { ...gone(20), power: { state: 'running', observedAt: t(20) } } as const;
    expect(checkFence(instanceOwned, contradictory, aRequest(), committedHistory())).toMatchObject({
      reason: 'InstanceNotFound',
    });
  });

  it('refuses to lift a taint for an instance that is gone: no power cycle of it can be shown', () => {
    const spec = { ...gone(600), node: { ...taintedNode(), ready: 'True' as const } };
    expect(checkUnfence(powerCycled, spec)).not.toEqual(Compliant);
  });
});

describe('decide() with an instance that is gone', () => {
  it('holds the isolation proof for the committed machine, names InstanceGone, and moves on to the taint', () => {
    const history: RunHistory = committedHistory();
    const decision = decide(observe(gone(20)), aRequest(), history);

    expect(decision.reason).not.toBe('WrongAccount');
    expect(decision.phase).not.toBe('Refused');
    expect(decision.action?.kind).toBe('taint');
    expect(decision.evidence.join('\n')).toMatch(
      /proof of off \(InstanceGone[^)]*\): instance i-\w+: not-found/,
    );
  });

  it('keeps a proof already held when the provider later forgets the instance', () => {
    const decision = decide(observe(gone(60)), aRequest(), provenHistory());
    expect(decision.phase).not.toBe('Refused');
    expect(decision.action?.kind).toBe('taint');
  });

  it('never answers WrongAccount for a not-found instance, and acts before the commitment never', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 11, max: 200 }),
        fc.constantFrom<'fresh' | 'committed' | 'proven'>('fresh', 'committed', 'proven'),
        fc.constantFrom('Unknown', 'False'),
        fc.boolean(),
        (at, stage, ready, disksListed) => {
          const history =
            stage === 'fresh' ? freshHistory() : stage === 'committed' ? committedHistory() : provenHistory();
          const spec = { ...gone(at), node: { ready }, disks: disksListed ? [ROOT_DISK] : [] } as const;
          const decision = decide(observe(spec), aRequest(), history);
          expect(decision.reason).not.toBe('WrongAccount');
          if (stage === 'fresh') {
            expect(decision).toMatchObject({ phase: 'Refused', reason: 'InstanceNotFound', action: null });
          } else {
            expect(decision.reason).not.toBe('InstanceNotFound');
          }
        },
      ),
    );
  });
});
