/**
 * What the un-fence rules tell the operator: the exact evidence of every wait and refusal, with lists of
 * more than one item, and the messages of each step. The operator decides from these whether to power
 * cycle the machine again, lift a blocklist by hand or leave someone else's taint alone.
 */
import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../lib/domain/index.js';
import {
  liftBlocklist,
  nodeReadyAgain,
  powerCycled,
  removeTaint,
  staleRecordCleared,
  taintOwned,
  unfenceDryRun,
  unfenceInstanceOwned,
  unfenceInstanceResolved,
} from '../../../lib/domain/rules/unfence.js';
import { unfenceContext, unfenceEvidence } from '../../../lib/domain/rules/unfence-context.js';
import {
  anUnfenceRequest,
  checkUnfence,
  fault,
  freshHistory,
  INSTANCE,
  OUR_RECORD,
  OUR_TAINT,
  observe,
  THEIR_TAINT,
  t,
  taintedNode,
} from './support/fixtures.js';
import { aBlocklist, aStorage, ENTRY, RANGE } from './support/storage.js';

/** Back after a power cycle: Ready, running, launched after the fence at t(45). */
const back = {
  at: 600,
  node: taintedNode({ ready: 'True' }),
  power: { state: 'running', launchTime: t(500) },
} as const;
const NO_SCHEDULE = { ...THEIR_TAINT, effect: 'NoSchedule', timeAdded: null } as const;
const OURS = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute (added 2026-03-01T10:00:45Z)';
const THEIRS = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute (added 2026-03-01T10:03:00Z)';
const SECOND_ENTRY = '10.0.9.9/32';

describe('stale-record-cleared', () => {
  const stale = (taints = [] as (typeof THEIR_TAINT)[]) => ({
    ...back,
    node: { ready: 'True' as const, outOfServiceTaints: taints, fenceRecord: OUR_RECORD },
  });

  it('says what it clears, and in a dry run what it would do next', () => {
    const evidence = [`fence record of run run-1 names ${OURS}, which is gone`];
    expect(checkUnfence(staleRecordCleared, stale())).toMatchObject({
      message: "The fencer's taint is no longer on node worker-1; clearing its stale fence record.",
      evidence,
    });
    const dryRun = anUnfenceRequest({ dryRun: true });
    expect(checkUnfence(staleRecordCleared, stale(), dryRun)).toMatchObject({
      message: 'Dry run: would clear the stale fence record and stop.',
      evidence,
    });
    expect(checkUnfence(staleRecordCleared, stale([THEIR_TAINT]), dryRun)).toMatchObject({
      message: 'Dry run: would clear the stale fence record and leave the other out-of-service taint alone.',
    });
  });
});

describe('taint-owned', () => {
  const foreign = {
    ...back,
    node: { ready: 'True' as const, outOfServiceTaints: [THEIR_TAINT, NO_SCHEDULE] },
  };

  it('names every taint it did not add', () => {
    expect(checkUnfence(taintOwned, foreign)).toMatchObject({
      evidence: [
        `node worker-1 carries ${THEIRS}, node.kubernetes.io/out-of-service=nodeshutdown:NoSchedule, which the fencer did not add`,
      ],
    });
  });

  it('once it removed its own, is done and says which taints stay', () => {
    const history = {
      ...freshHistory(),
      steps: [{ at: t(590), phase: 'Unfence', action: 'remove-taint', reason: null, rule: 'remove-taint' }],
    } as const;
    expect(checkUnfence(taintOwned, foreign, anUnfenceRequest(), history)).toMatchObject({
      phase: 'Unfenced',
      message: `Node worker-1 carries no out-of-service taint of the fencer's. It still carries ${THEIRS}, node.kubernetes.io/out-of-service=nodeshutdown:NoSchedule, which is not the fencer's to remove.`,
    });
    expect(checkUnfence(taintOwned, { ...back, node: { ready: 'True' } })).toMatchObject({
      message: "Node worker-1 carries no out-of-service taint of the fencer's.",
    });
  });
});

describe('waits and refusals name what is missing', () => {
  it('node not Ready, ownership unknown or mismatched', () => {
    expect(checkUnfence(nodeReadyAgain, { ...back, node: taintedNode() })).toMatchObject({
      evidence: ['node worker-1 is Ready=Unknown'],
    });
    expect(checkUnfence(unfenceInstanceOwned, { ...back, ownership: fault() })).toMatchObject({
      evidence: ['ProviderApiError: Rate exceeded'],
    });
    expect(
      checkUnfence(unfenceInstanceOwned, { ...back, power: { ...back.power, instanceId: 'i-other' } }),
    ).toMatchObject({
      evidence: [`node names ${INSTANCE}, evidence i-other`],
    });
    const notOwned = {
      owned: false,
      reason: 'wrong-region',
      detail: 'region us-east-1 is not eu-west-1',
    } as const;
    expect(checkUnfence(unfenceInstanceOwned, { ...back, ownership: notOwned })).toMatchObject({
      reason: 'WrongRegion',
      evidence: ['region us-east-1 is not eu-west-1'],
    });
  });

  it('no power cycle: the state, the launch time and the fence time', () => {
    expect(
      checkUnfence(powerCycled, { ...back, power: { state: 'running', launchTime: t(-60) } }),
    ).toMatchObject({
      evidence: [`instance ${INSTANCE} is running, launched ${t(-60)}; fenced at ${t(45)}`],
    });
    expect(
      checkUnfence(powerCycled, { ...back, power: { state: 'stopped', launchTime: undefined } }),
    ).toMatchObject({
      evidence: [`instance ${INSTANCE} is stopped, launched at an unknown time; fenced at ${t(45)}`],
    });
    expect(checkUnfence(powerCycled, { ...back, power: fault('boom') })).toMatchObject({
      evidence: ['ProviderApiError: boom'],
    });
  });

  it('a launch in the same second as the fence is not told from one before it, and says so', () => {
    // Reported to the second: the same time as the fence, so not after it.
    const sameSecond = '2026-03-01T10:00:45Z';
    expect(
      checkUnfence(powerCycled, { ...back, power: { state: 'running', launchTime: sameSecond } }),
    ).toMatchObject({
      reason: 'NoPowerCycleSinceFence',
      evidence: [
        `instance ${INSTANCE} is running, launched ${sameSecond}; fenced at ${t(45)}`,
        'the launch time falls in the same second as the fence, and providers report launch times to the ' +
          'second at best: a start that close cannot be told from one before the fence. Stop and start ' +
          'the instance once more.',
      ],
    });
  });

  it('a bare-metal node: its boot now and at the fence', () => {
    const bare = {
      ...back,
      node: taintedNode({ ready: 'True', providerId: null, fenceRecord: { ...OUR_RECORD, instanceId: '' } }),
      instance: { resolved: false, problem: 'missing', detail: '' },
    } as const;
    expect(checkUnfence(powerCycled, bare)).toMatchObject({
      evidence: ['node worker-1 boot boot-1; boot at the fence not recorded'],
    });
    const unknownBoot = { ...bare, node: { ...bare.node, bootId: null } };
    expect(checkUnfence(powerCycled, unknownBoot)).toMatchObject({
      evidence: ['node worker-1 boot unknown; boot at the fence not recorded'],
    });
  });
});

describe('the blocklist lift and the taint removal', () => {
  const fencedBoth = (storage: ReturnType<typeof aStorage> | null) => ({
    ...back,
    node: taintedNode({ ready: 'True', fenceRecord: { ...OUR_RECORD, blocklist: [RANGE, SECOND_ENTRY] } }),
    storage,
  });
  const listedBoth = {
    ...aBlocklist(600, true),
    found: [
      { ...ENTRY, until: t(4000) },
      { kind: 'range', entry: SECOND_ENTRY, source: 'configured range', until: t(4000) },
    ],
  } as const;

  it('lifts every entry still listed, naming them', () => {
    expect(checkUnfence(liftBlocklist, fencedBoth(aStorage(listedBoth)))).toMatchObject({
      action: { kind: 'storage-lift', entries: [RANGE, SECOND_ENTRY] },
      message: `Node worker-1 is back after a reboot; lifting the fencer's blocklist entries ${RANGE}, ${SECOND_ENTRY}.`,
    });
  });

  it('waits when no storage fencer can lift them, or the storage cluster does not answer', () => {
    expect(checkUnfence(liftBlocklist, fencedBoth(null))).toMatchObject({
      reason: 'StorageUnreachable',
      evidence: [
        `the fence record lists blocklist entries (${RANGE}, ${SECOND_ENTRY}) but no storage fencer is configured`,
      ],
    });
    expect(
      checkUnfence(liftBlocklist, fencedBoth(aStorage({ name: 'CephError', message: 'timeout' }))),
    ).toMatchObject({
      reason: 'StorageUnreachable',
      evidence: ['CephError: timeout'],
    });
  });

  it('a dry run names the entries it would lift before the taint', () => {
    expect(checkUnfence(unfenceDryRun, fencedBoth(null), anUnfenceRequest({ dryRun: true }))).toMatchObject({
      message: `Dry run: would lift the fencer's blocklist entries ${RANGE}, ${SECOND_ENTRY}, then remove the out-of-service taint and fence record from node worker-1.`,
    });
    expect(checkUnfence(unfenceDryRun, back, anUnfenceRequest({ dryRun: true }))).toMatchObject({
      message: 'Dry run: would remove the out-of-service taint and fence record from node worker-1.',
    });
  });

  it('removes the taint saying why it may', () => {
    expect(checkUnfence(removeTaint, back)).toMatchObject({
      action: { kind: 'remove-taint', taint: OUR_TAINT },
      message: "Node worker-1 is Ready after a power cycle; removing the fencer's out-of-service taint.",
    });
  });
});

describe('the evidence every un-fence decision starts with, and the end of its patience', () => {
  it('the node, its fence record and the power state, in that order', () => {
    const ctx = unfenceContext(observe(back), anUnfenceRequest(), freshHistory());
    const lines = unfenceEvidence(ctx);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe(`fenced at ${t(45)} by run run-1`);
    expect(lines[2]).toMatch(/^instance i-0123456789abcdef0: running/);
    const noRecord = unfenceContext(
      observe({ ...back, node: {}, power: fault() }),
      anUnfenceRequest(),
      freshHistory(),
    );
    expect(unfenceEvidence(noRecord)).toHaveLength(1);
  });

  it('waits until the request stops waiting, then refuses saying when it gave up', () => {
    const notReady = { node: taintedNode() };
    const request = anUnfenceRequest({ waitSeconds: 600 });
    expect(checkUnfence(nodeReadyAgain, { ...notReady, at: 600 }, request)).toMatchObject({
      phase: 'UnfenceAssess',
      waitSeconds: 15,
    });
    expect(checkUnfence(nodeReadyAgain, { ...notReady, at: 601 }, request)).toMatchObject({
      phase: 'Refused',
      reason: 'NodeNotReadyYet',
      evidence: ['node worker-1 is Ready=Unknown', `gave up at ${t(600)}`],
    });
  });
});

describe('un-fence rules on nodes without a machine, a record or a taint', () => {
  const missing = { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' } as const;

  it('instance-resolved: a bare-metal record needs no machine; anything else without one is refused', () => {
    const bareRecord = taintedNode({ ready: 'True', fenceRecord: { ...OUR_RECORD, instanceId: '' } });
    expect(checkUnfence(unfenceInstanceResolved, { ...back, node: bareRecord, instance: missing })).toEqual(
      NotApplicable,
    );
    expect(checkUnfence(unfenceInstanceResolved, { ...back, instance: missing })).toMatchObject({
      reason: 'ProviderIdMissing',
      evidence: ['spec.providerID is empty'],
    });
    expect(
      checkUnfence(unfenceInstanceResolved, { ...back, node: { ready: 'True' }, instance: missing }),
    ).toMatchObject({
      reason: 'ProviderIdMissing',
    });
    const unparseable = { resolved: false, problem: 'unparseable', detail: 'no instance id' } as const;
    expect(
      checkUnfence(unfenceInstanceResolved, { ...back, node: bareRecord, instance: unparseable }),
    ).toMatchObject({
      reason: 'ProviderIdUnparseable',
    });
    expect(checkUnfence(unfenceInstanceResolved, back)).toEqual(Compliant);
    expect(checkUnfence(unfenceInstanceResolved, { node: null })).toEqual(NotApplicable);
  });

  it('power-cycled: a record of another machine, or of none while the node now names one, is refused', () => {
    const other = taintedNode({ ready: 'True', fenceRecord: { ...OUR_RECORD, instanceId: 'i-old' } });
    expect(checkUnfence(powerCycled, { ...back, node: other })).toMatchObject({
      reason: 'InstanceMismatch',
      evidence: [`the fence record names i-old, the node now names ${INSTANCE}`],
    });
    const none = taintedNode({ ready: 'True', fenceRecord: { ...OUR_RECORD, instanceId: '' } });
    expect(checkUnfence(powerCycled, { ...back, node: none })).toMatchObject({ reason: 'InstanceMismatch' });
  });

  it('power-cycled on bare metal: a new boot ID is the reboot', () => {
    const bare = (bootId: string) => ({
      ...back,
      node: taintedNode({
        ready: 'True',
        bootId,
        fenceRecord: { ...OUR_RECORD, instanceId: '', bootId: 'boot-1' },
      }),
      instance: missing,
    });
    expect(checkUnfence(powerCycled, bare('boot-2'))).toEqual(Compliant);
    expect(checkUnfence(powerCycled, bare('boot-1'))).toMatchObject({
      evidence: ['node worker-1 boot boot-1; boot at the fence boot-1'],
    });
  });

  it('dry run, lift and removal leave a node without a record or without our taint alone', () => {
    const dryRun = anUnfenceRequest({ dryRun: true });
    expect(checkUnfence(unfenceDryRun, { node: null }, dryRun)).toEqual(NotApplicable);
    expect(checkUnfence(unfenceDryRun, { ...back, node: { ready: 'True' } }, dryRun)).toMatchObject({
      message: 'Dry run: would remove the out-of-service taint and fence record from node worker-1.',
    });
    expect(checkUnfence(liftBlocklist, { ...back, node: { ready: 'True' } })).toEqual(NotApplicable);
    const stale = {
      ...back,
      node: { ready: 'True' as const, outOfServiceTaints: [], fenceRecord: OUR_RECORD },
    };
    expect(checkUnfence(removeTaint, stale)).toEqual(NotApplicable);
  });

  it('lift: an entry still listed but lapsing soon is lifted too; one no longer listed is not', () => {
    const node = taintedNode({
      ready: 'True',
      fenceRecord: { ...OUR_RECORD, blocklist: [RANGE, SECOND_ENTRY] },
    });
    const second = { kind: 'range', entry: SECOND_ENTRY, source: 'configured range' } as const;
    const lapsing = {
      ...aBlocklist(600, false),
      expected: [ENTRY, second],
      missing: [{ ...ENTRY, until: t(610) }, second],
    };
    expect(checkUnfence(liftBlocklist, { ...back, node, storage: aStorage(lapsing) })).toMatchObject({
      action: { kind: 'storage-lift', entries: [RANGE] },
    });
  });
});
