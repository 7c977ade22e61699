/**
 * The soak's checker on histories written by hand: each invariant finds its breach, and a history that
 * keeps the contract has none. (The soak itself shows it on the lab's own records: test/e2e/soak.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { check, HEALED_GRACE_MS } from '../../../lab/soak/checker.js';
import type { Sample, SampledNode, SoakRecords } from '../../../lab/soak/records.js';

const T0 = Date.parse('2026-12-05T12:00:00Z');
const iso = (t: number) => new Date(t).toISOString();
const TAINT_AT = T0 + 60_000;

const node = (over: Partial<SampledNode> = {}): SampledNode => ({
  ready: 'True',
  taints: [],
  recordedTaintAt: null,
  instance: 'running',
  ...over,
});
const fenced = (instance: string): SampledNode =>
  node({
    ready: 'Unknown',
    instance,
    recordedTaintAt: iso(TAINT_AT),
    taints: [{ value: 'nodeshutdown', effect: 'NoExecute', timeAdded: iso(TAINT_AT) }],
  });

/** node-a cut at T0, powered off by the fencer at +50 s, tainted at +60 s, db moved to node-b at +70 s. */
function goodHistory(): SoakRecords {
  const samples: Sample[] = [];
  for (let s = 0; s <= 120; s++) {
    const t = T0 + s * 1000;
    const a =
      s < 40
        ? node()
        : s < 50
          ? node({ ready: 'Unknown' })
          : s < 60
            ? node({ ready: 'Unknown', instance: 'stopped' })
            : fenced('stopped');
    samples.push({
      t,
      nodes: { 'node-a': a, 'node-b': node(), 'node-c': node(), 'node-d': node(), 'node-e': node() },
      volumes: {
        'vol-1': {
          kind: 'disk',
          attachedTo: s < 65 ? ['node-a'] : s < 68 ? [] : ['node-b'],
          pod: { node: s < 62 ? 'node-a' : 'node-b', phase: s < 70 ? 'Pending' : 'Running' },
        },
      },
    });
  }
  return {
    world: 'aws',
    seed: 1,
    bareMetal: [],
    samples,
    truth: [{ t: T0, step: 0, action: 'cut', node: 'node-a' }],
    powerOffs: [{ t: T0 + 50_000, node: 'node-a', instanceId: 'i-a' }],
    writes: [],
    runs: [
      {
        name: 'run-a',
        node: 'node-a',
        path: 'automated',
        startedAt: T0 + 45_000,
        endedAt: T0 + 75_000,
        outcome: 'fenced',
        reason: null,
      },
    ],
    limits: { maxInFlight: 1, maxUnhealthyNodes: 2, maxUnhealthyFraction: 0.4 },
  };
}

const invariants = (records: SoakRecords) => check(records).map((v) => v.invariant);

describe('the soak checker', () => {
  it('finds nothing in a history that keeps the contract', () => {
    expect(check(goodHistory())).toEqual([]);
  });

  it('finds a disk attached to a second machine while the first still runs (two writers)', () => {
    const records = goodHistory();
    const samples = records.samples.map((s) =>
      s.t >= T0 + 50_000
        ? {
            ...s,
            nodes: { ...s.nodes, 'node-a': { ...(s.nodes['node-a'] as SampledNode), instance: 'running' } },
          }
        : s,
    );
    expect(invariants({ ...records, samples, powerOffs: [] })).toContain('two-writers');
  });

  it("finds the fencer's taint on a node whose machine still runs (released while writing)", () => {
    const records = goodHistory();
    const samples = records.samples.map((s) =>
      s.t >= TAINT_AT ? { ...s, nodes: { ...s.nodes, 'node-a': fenced('running') } } : s,
    );
    expect(invariants({ ...records, samples })).toContain('released-while-writing');
  });

  it("finds an RBD client's write accepted after its node's taint, and none for a failed one", () => {
    const records = { ...goodHistory(), bareMetal: ['node-a'] };
    const write = { node: 'node-a', image: 'img', started: TAINT_AT + 3_000, t: TAINT_AT + 3_100, ok: true };
    expect(invariants({ ...records, writes: [write] })).toContain('released-while-writing');
    expect(invariants({ ...records, writes: [{ ...write, ok: false }] })).toEqual([]);
  });

  it('finds two nodes writing one image', () => {
    const w = (node: string, t: number) => ({ node, image: 'img', started: t - 50, t, ok: true });
    const records = {
      ...goodHistory(),
      writes: [w('node-a', T0), w('node-b', T0 + 90_000), w('node-a', T0 + 91_000)],
    };
    expect(invariants(records)).toContain('two-writers');
    expect(invariants({ ...records, writes: records.writes.slice(0, 2) })).toEqual([]);
  });

  it('finds a power-off of a node that was never down, or healed more than the grace before', () => {
    const records = goodHistory();
    expect(
      invariants({ ...records, powerOffs: [{ t: T0 + 50_000, node: 'node-c', instanceId: 'i-c' }] }),
    ).toContain('stopped-live-node');
    const healed = { t: T0 + 20_000, step: 1, action: 'reconnect' as const, node: 'node-a' };
    const late = { ...records, truth: [...records.truth, healed] };
    expect(invariants(late)).toContain('stopped-live-node');
    const justHealed = { ...healed, t: T0 + 50_000 - HEALED_GRACE_MS + 1_000 };
    expect(invariants({ ...records, truth: [...records.truth, justHealed] })).not.toContain(
      'stopped-live-node',
    );
  });

  it("finds someone else's taint gone before the soak took it off", () => {
    const records = goodHistory();
    const added = iso(T0 + 10_000);
    const truth = [
      ...records.truth,
      { t: T0 + 10_000, step: 2, action: 'foreign-taint-add' as const, node: 'node-c', detail: added },
    ];
    const samples = records.samples.map((s) =>
      s.t >= T0 + 10_000 && s.t < T0 + 30_000
        ? {
            ...s,
            nodes: {
              ...s.nodes,
              'node-c': node({ taints: [{ value: 'maintenance', effect: 'NoSchedule', timeAdded: added }] }),
            },
          }
        : s,
    );
    expect(invariants({ ...records, truth, samples })).toContain('foreign-taint-removed');
    const removedBySoak = [
      ...truth,
      { t: T0 + 30_000, step: 3, action: 'foreign-taint-remove' as const, node: 'node-c', detail: added },
    ];
    expect(invariants({ ...records, truth: removedBySoak, samples })).toEqual([]);
  });

  it('finds a run that never ended, or was refused without a reason', () => {
    const records = goodHistory();
    const run = records.runs[0];
    if (!run) throw new Error('no run');
    expect(invariants({ ...records, runs: [{ ...run, endedAt: null, outcome: null }] })).toContain(
      'run-without-reason',
    );
    expect(invariants({ ...records, runs: [{ ...run, outcome: 'refused', reason: null }] })).toContain(
      'run-without-reason',
    );
  });

  it("finds someone else's blocklist entry gone before they took it off", () => {
    const records = goodHistory();
    const entry = '10.77.1.2:0/4200003';
    const truth = [
      ...records.truth,
      { t: T0 + 10_000, step: 1, action: 'foreign-blocklist-add' as const, node: 'node-a', detail: entry },
      {
        t: T0 + 100_000,
        step: 1,
        action: 'foreign-blocklist-remove' as const,
        node: 'node-a',
        detail: entry,
      },
    ];
    // Listed from +10 s; the fencer's lift at +80 s took it too, 20 s before its owner did.
    const listed = (gone: number) =>
      records.samples.map((s) => ({
        ...s,
        blocklist: s.t >= T0 + 10_000 && s.t < gone ? [entry, '10.77.1.2/32'] : ['10.77.1.2/32'],
      }));
    expect(invariants({ ...records, truth, samples: listed(T0 + 80_000) })).toContain(
      'foreign-blocklist-removed',
    );
    expect(invariants({ ...records, truth, samples: listed(T0 + 100_000) })).not.toContain(
      'foreign-blocklist-removed',
    );
    // A sample that could not read the blocklist proves nothing either way.
    const unread = listed(T0 + 100_000).map((s) =>
      s.t === T0 + 50_000 ? { ...s, blocklist: undefined } : s,
    );
    expect(invariants({ ...records, truth, samples: unread })).not.toContain('foreign-blocklist-removed');
  });

  it("finds the fencer's taint removed with no power cycle since", () => {
    const records = goodHistory();
    // The machine never showed off, and the taint is gone at +100 s.
    const samples = records.samples.map((s) => {
      const a = s.nodes['node-a'] as SampledNode;
      const instance = 'running';
      if (s.t < TAINT_AT) return { ...s, nodes: { ...s.nodes, 'node-a': { ...a, instance } } };
      return s.t < T0 + 100_000
        ? { ...s, nodes: { ...s.nodes, 'node-a': { ...fenced(instance), ready: 'True' } } }
        : { ...s, nodes: { ...s.nodes, 'node-a': node({ recordedTaintAt: iso(TAINT_AT) }) } };
    });
    const bareMetal = { ...records, bareMetal: ['node-a'], powerOffs: [], samples };
    expect(invariants(bareMetal)).toContain('unfenced-without-power-cycle');
    // A bare-metal host that rebooted (its kubelet's new bootID) before the taint left is fine.
    const rebooted = samples.map((s) => {
      const a = s.nodes['node-a'] as SampledNode;
      const bootId = s.t < T0 + 95_000 ? 'boot-0' : 'boot-1';
      return { ...s, nodes: { ...s.nodes, 'node-a': { ...a, bootId } } };
    });
    expect(invariants({ ...bareMetal, samples: rebooted })).not.toContain('unfenced-without-power-cycle');
    // The same new bootID on a node with a machine proves nothing: its machine must have been off.
    expect(invariants({ ...bareMetal, bareMetal: [], samples: rebooted })).toContain(
      'unfenced-without-power-cycle',
    );
  });

  it('finds two fencings in flight beyond the limit, and a power-off with too many nodes unhealthy', () => {
    const records = goodHistory();
    const second = { t: T0 + 55_000, node: 'node-c', instanceId: 'i-c' };
    const truth = [...records.truth, { t: T0 + 1_000, step: 1, action: 'cut' as const, node: 'node-c' }];
    expect(invariants({ ...records, truth, powerOffs: [...records.powerOffs, second] })).toContain(
      'in-flight-over-limit',
    );
    const unhealthy = records.samples.map((s) => ({
      ...s,
      nodes: { ...s.nodes, 'node-b': node({ ready: 'Unknown' }), 'node-c': node({ ready: 'Unknown' }) },
    }));
    expect(invariants({ ...records, samples: unhealthy })).toContain('unhealthy-over-limit');
  });
});
