/**
 * Un-fencing a node fenced at the storage layer (SAFETY.md rule 6): the fencer lifts exactly its own blocklist
 * entries, only after a reboot (a changed bootID where there is no machine to ask) and Ready, and before
 * it removes its taint.
 */
import { describe, expect, it } from 'vitest';
import { decideUnfence, NotApplicable, UNFENCE_TABLE } from '../../../lib/domain/index.js';
import type { ObservedStorage } from '../../../lib/domain/observation.js';
import { liftBlocklist, powerCycled } from '../../../lib/domain/rules/unfence.js';
import { unfenceContext } from '../../../lib/domain/rules/unfence-context.js';
import {
  anUnfenceRequest,
  checkUnfence,
  fault,
  freshHistory,
  NODE,
  NODE_IP,
  OUR_RECORD,
  observe,
  type Spec,
  t,
  taintedNode,
} from './support/fixtures.js';

const OURS = `${NODE_IP}/32`;
/** A range of the node's storage network an operator blocklisted before the fence. */
const OPERATORS = '10.20.0.12/32';
const entry = (e: string) => ({ kind: 'range' as const, entry: e, source: 'test', until: t(7 * 86_400) });

/** The storage cluster lists `found` of the node's entries, and a lock-breaking entry of librbd's. */
const listing = (found: readonly string[]): ObservedStorage => ({
  storage: 'ceph-rbd',
  addresses: [NODE_IP],
  declared: [],
  declaredError: null,
  otherNodesSharingAddresses: [],
  conflicts: [],
  blocklist: {
    ok: true,
    value: {
      node: NODE,
      observedAt: t(600),
      expected: [entry(OURS), entry(OPERATORS)],
      found: found.map(entry),
      missing: [entry(OURS), entry(OPERATORS)]
        .filter((e) => !found.includes(e.entry))
        .map(({ until: _u, ...e }) => e),
      related: [{ entry: `${NODE_IP}:0/3123456789`, until: t(3600) }],
      confirmed: found.length === 2,
    },
  },
});

/** A bare-metal node fenced by blocklist alone at boot `boot-1`: no providerID, no machine recorded. */
const bareMetal = (overrides: Spec = {}): Spec => ({
  at: 600,
  node: taintedNode({
    ready: 'True',
    providerId: null,
    bootId: 'boot-2',
    fenceRecord: { ...OUR_RECORD, instanceId: '', proof: 'blocklisted', blocklist: [OURS], bootId: 'boot-1' },
  }),
  instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
  storage: listing([OURS, OPERATORS]),
  ...overrides,
});

const withNode = (spec: Spec, node: Partial<NonNullable<Spec['node']>>): Spec => ({
  ...spec,
  node: { ...spec.node, ...node },
});

describe('power-cycled for a node with no machine (SAFETY.md rule 6)', () => {
  it('takes a changed bootID as the reboot', () => {
    expect(checkUnfence(powerCycled, bareMetal())).toEqual({ kind: 'compliant' });
  });

  it.each([
    ['the same boot', 'boot-1'],
    ['an unknown boot', null],
  ])('keeps the taint on %s', (_name, bootId) => {
    expect(checkUnfence(powerCycled, withNode(bareMetal(), { bootId }))).toMatchObject({
      reason: 'NoPowerCycleSinceFence',
      action: null,
    });
  });

  it('keeps it when the fence recorded no boot to compare with', () => {
    const spec = bareMetal();
    const record = { ...OUR_RECORD, instanceId: '', blocklist: [OURS], bootId: null };
    expect(checkUnfence(powerCycled, withNode(spec, { fenceRecord: record }))).toMatchObject({
      reason: 'NoPowerCycleSinceFence',
    });
  });
});

describe('lift-blocklist (SAFETY.md rule 6)', () => {
  it("lifts exactly the entries the fence recorded as its own: not the operator's, not librbd's", () => {
    expect(checkUnfence(liftBlocklist, bareMetal())).toMatchObject({
      phase: 'Unfence',
      action: { kind: 'storage-lift', node: NODE, entries: [OURS] },
    });
  });

  it('has nothing to do once its entries are gone', () => {
    expect(checkUnfence(liftBlocklist, bareMetal({ storage: listing([OPERATORS]) }))).toEqual(NotApplicable);
  });

  it('does not apply to a fence that blocklisted nothing', () => {
    expect(checkUnfence(liftBlocklist, { ...bareMetal(), node: taintedNode({ ready: 'True' }) })).toEqual(
      NotApplicable,
    );
  });

  it('waits, lifting nothing, while the storage cluster cannot be read or no storage fencer is configured', () => {
    const unreadable: ObservedStorage = { ...listing([]), blocklist: { ok: false, error: fault('timeout') } };
    for (const storage of [unreadable, null]) {
      expect(checkUnfence(liftBlocklist, bareMetal({ storage }))).toMatchObject({
        phase: 'UnfenceAssess',
        reason: 'StorageUnreachable',
        action: null,
      });
    }
  });
});

describe('decideUnfence for a node fenced at the storage layer', () => {
  const decide = (spec: Spec) => decideUnfence(observe(spec), anUnfenceRequest(), freshHistory());

  it('lifts nothing and keeps the taint until the node has rebooted', () => {
    const decision = decide(withNode(bareMetal(), { bootId: 'boot-1' }));
    expect(decision).toMatchObject({ reason: 'NoPowerCycleSinceFence', action: null });
  });

  it('lifts nothing while the rebooted node is not Ready', () => {
    expect(decide(withNode(bareMetal(), { ready: 'Unknown' }))).toMatchObject({
      reason: 'NodeNotReadyYet',
      action: null,
    });
  });

  it('lifts its blocklist entries first, and removes its taint only once they are gone', () => {
    expect(decide(bareMetal()).action).toMatchObject({ kind: 'storage-lift', entries: [OURS] });
    expect(decide(bareMetal({ storage: listing([OPERATORS]) })).action).toMatchObject({
      kind: 'remove-taint',
    });
  });

  it('says in a dry run that it would lift the entries, and lifts nothing', () => {
    const decision = decideUnfence(observe(bareMetal()), anUnfenceRequest({ dryRun: true }), freshHistory());
    expect(decision.action).toBeNull();
    expect(decision.message).toContain(OURS);
  });
});

describe('the reboot rule is what keeps an early lift from happening', () => {
  /** The first outcome of the un-fence table with `ruleId` left out. */
  const firstOutcome = (spec: Spec, ruleId: string) => {
    const ctx = unfenceContext(observe(spec), anUnfenceRequest(), freshHistory());
    for (const rule of UNFENCE_TABLE.filter((r) => r.id !== ruleId)) {
      const verdict = rule.check(ctx);
      if (verdict.kind === 'outcome') return verdict;
    }
    return null;
  };

  it('without power-cycled, the table would lift the blocklist of a node that never rebooted', () => {
    const sameBoot = withNode(bareMetal(), { bootId: 'boot-1' });
    expect(firstOutcome(sameBoot, 'power-cycled')?.action).toMatchObject({ kind: 'storage-lift' });
    expect(firstOutcome(sameBoot, 'none')?.action).toBeNull();
  });
});
