/**
 * A run that ends before releasing anything lifts the blocklist entries it added (its node would
 * otherwise stay shut out of Ceph for a week, with no record naming the entries), and only then: never
 * after a taint, never once every proof is held (a release may follow or have followed), never in a dry
 * run, never an entry that was listed before the run committed.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../../../lib/domain/decide.js';
import { act, halt, wait } from '../../../../lib/domain/decision.js';
import { Phase, Reason, type RunHistory } from '../../../../lib/domain/index.js';
import { fenceContext } from '../../../../lib/domain/rules/context.js';
import { entriesToUnwind, unwindStorage } from '../../../../lib/domain/rules/unwind.js';
import { aRequest, fault, observe, provenHistory, type Spec, t } from '../support/fixtures.js';
import { aBlocklist, aStorage, ENTRY, IMAGE, RANGE, storageCommittedHistory } from '../support/storage.js';

const OTHER = { kind: 'range', entry: '10.0.9.9/32', source: 'configured range 10.0.9.9/32' } as const;

/** The node back (Ready, Lease fresh) at `t(30)`, its blocklist listing `entries` (with long expiries). */
const cameBack = (entries: readonly (typeof OTHER)[] = []): Spec => {
  const listed = aBlocklist(30, true);
  const all = [...listed.found, ...entries.map((e) => ({ ...e, until: t(3600) }))];
  return {
    at: 30,
    node: { ready: 'True', leaseRenewTime: t(29) },
    volumeAttachments: [IMAGE],
    storage: aStorage({ ...listed, expected: all, found: all }),
  };
};

/** A cloud node's run: the blocklist requested and confirmed, its machine not yet proven off. */
const blocklistedHistory = (): RunHistory => ({
  ...storageCommittedHistory(),
  isolation: { machine: true, storage: true, watch: false },
  storageProof: aBlocklist(20, true),
});

describe('unwind-storage: a run that ends before any release lifts its own entries', () => {
  it('lifts exactly the entries it added when the node comes back after the blocklist, keeping the reason', () => {
    const history = { ...blocklistedHistory(), storageBefore: [OTHER.entry] };
    const decision = decide(observe(cameBack([OTHER])), aRequest(), history);

    expect(decision).toMatchObject({
      rule: 'unwind-storage',
      done: false,
      reason: 'NodeCameBack',
      action: { kind: 'storage-lift', node: 'worker-1', entries: [RANGE] },
    });
    expect(decision.message).toContain(RANGE);
  });

  it('then ends as it would have, once its entries are no longer listed', () => {
    const back = cameBack();
    const gone = { ...back, storage: aStorage(aBlocklist(31, false)) };
    const decision = decide(observe({ ...gone, at: 31 }), aRequest(), blocklistedHistory());

    expect(decision).toMatchObject({ phase: 'Refused', reason: 'NodeCameBack', done: true, action: null });
  });

  it('lifts nothing once a taint was recorded, or once every proof is held', () => {
    const tainted = { ...blocklistedHistory(), taintedAt: t(25) };
    const bothProofs = {
      ...provenHistory(),
      ...blocklistedHistory(),
      proofOfOff: provenHistory().proofOfOff,
    };
    for (const history of [tainted, bothProofs]) {
      const decision = decide(observe(cameBack()), aRequest(), history);
      expect(decision.action?.kind ?? null).not.toBe('storage-lift');
    }
  });

  it('lifts nothing in a dry run, nor for a run that never asked for the storage fence', () => {
    const neverAsked = { ...blocklistedHistory(), storageFenceRequestedAt: null };
    expect(decide(observe(cameBack()), aRequest(), neverAsked).action).toBeNull();
    expect(decide(observe(cameBack()), aRequest({ dryRun: true }), blocklistedHistory()).action).toBeNull();
  });
});

describe('entriesToUnwind: which of its own entries a run that ends early may lift', () => {
  const SECOND = { kind: 'range', entry: '10.0.1.24/32', source: 'InternalIP 10.0.1.24' } as const;
  const LAPSING = { kind: 'range', entry: '10.0.1.25/32', source: 'InternalIP 10.0.1.25' } as const;
  const ctxAt = (storage: Spec['storage'], history: RunHistory = blocklistedHistory()) =>
    fenceContext(observe({ at: 30, volumeAttachments: [IMAGE], storage }), aRequest(), history);

  it('lifts nothing when the storage cluster was not read in this step', () => {
    expect(entriesToUnwind(ctxAt(null))).toEqual([]);
  });

  it('lifts nothing when the storage cluster could not list the blocklist', () => {
    expect(entriesToUnwind(ctxAt(aStorage(fault('connection refused'))))).toEqual([]);
  });

  it('lifts an entry that is listed but lapses too soon, never one that is not listed at all', () => {
    const listed = aBlocklist(30, true);
    const blocklist = {
      ...listed,
      expected: [ENTRY, SECOND, LAPSING],
      confirmed: false,
      // SECOND is not listed; LAPSING is listed, with an expiry too close to count.
      missing: [SECOND, { ...LAPSING, until: t(40) }],
    };
    expect(entriesToUnwind(ctxAt(aStorage(blocklist)))).toEqual([RANGE, LAPSING.entry]);
  });
});

describe('unwindStorage: only a run that ends lifts, and it keeps why it ends', () => {
  const SECOND = { kind: 'range', entry: '10.0.1.24/32', source: 'InternalIP 10.0.1.24' } as const;
  const listed = aBlocklist(30, true);
  const both = [...listed.found, { ...SECOND, until: t(3600) }];
  const ctx = fenceContext(
    observe({
      at: 30,
      volumeAttachments: [IMAGE],
      storage: aStorage({ ...listed, expected: both, found: both }),
    }),
    aRequest(),
    blocklistedHistory(),
  );

  it.each([
    ['Refused', halt(Phase.Refused, Reason.NodeCameBack, ['node worker-1 is Ready=True'])],
    ['Failed', halt(Phase.Failed, Reason.PowerOffNotConfirmed, ['deadline was then'])],
  ])('lifts every entry of its own, named in the message, before a run that ends %s', (_, ending) => {
    expect(unwindStorage(ctx, ending)).toMatchObject({
      phase: 'StorageFence',
      action: { kind: 'storage-lift', node: 'worker-1', entries: [RANGE, SECOND.entry] },
      reason: ending.reason,
      evidence: ending.evidence,
      message: `The run ends before any release (${ending.message}); lifting the blocklist entries it added: ${RANGE}, ${SECOND.entry}.`,
    });
  });

  it.each([
    ['a wait', wait(Phase.ConfirmOff, 5, 'Waiting for the instance to be off.')],
    ['an action', act(Phase.PowerOff, null, 'Forcing the instance off.')],
    ['a dry-run report', act(Phase.DryRunReported, null, 'Dry run: would stop.')],
  ])('leaves the entries in place when the step is %s, not the end of the run', (_, step) => {
    expect(unwindStorage(ctx, step)).toBeNull();
  });
});
