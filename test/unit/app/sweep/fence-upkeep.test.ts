/**
 * The sweep keeps standing storage fences alive (SAFETY.md rule 6): which nodes it looks at, what it
 * asks, and what it never touches. The storage fencer here is an in-memory blocklist (the real one is
 * proven against a real Ceph in test/e2e/rbd-upkeep.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { sweep } from '../../../../lib/app/sweep/index.js';
import { parseSweepRequest } from '../../../../lib/config/sweep-request.js';
import type { ListedRecordedEntry } from '../../../../lib/domain/fence-upkeep.js';
import { FENCER_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../../../../lib/domain/node-marks.js';
import type {
  StorageDaemons,
  StorageFencer,
  StorageLiftRequest,
} from '../../../../lib/ports/storage-fencer.js';
import { fakeDeps, NOW, node, type World } from './fakes.js';

const DAY_MS = 86_400_000;
const TAINT = {
  key: OUT_OF_SERVICE_TAINT.key,
  value: OUT_OF_SERVICE_TAINT.value,
  effect: OUT_OF_SERVICE_TAINT.effect,
  timeAdded: '2026-03-01T10:00:00Z',
};
const I_A = `i-0${'a'.repeat(16)}`;

/** A node fenced by the fencer: its taint, and the record naming it and `entries`. */
const fenced = (name: string, entries: string[], over: Parameters<typeof node>[1] = {}) =>
  node(name, {
    ready: 'Unknown',
    addresses: [{ type: 'InternalIP', address: entries[0]?.replace('/32', '') ?? '' }],
    providerId: undefined,
    taints: [TAINT],
    annotations: {
      [FENCER_ANNOTATION.fenceRecord]: JSON.stringify({
        runId: `run-${name}`,
        fencedAt: '2026-03-01T10:00:00Z',
        instanceId: '',
        proof: 'blocklist',
        taint: TAINT,
        blocklist: entries,
      }),
    },
    ...over,
  });

/** An in-memory blocklist: entry → expiry (ms). */
function memoryFencer(
  list: Map<string, number>,
  calls: string[],
  daemons: StorageDaemons['daemons'] = [],
): StorageFencer {
  const read = (r: StorageLiftRequest): ListedRecordedEntry[] =>
    r.entries.map((entry) => {
      const until = list.get(entry);
      return { entry, until: until === undefined ? null : new Date(until).toISOString() };
    });
  return {
    storage: 'ceph-rbd',
    storageClusters: null,
    renewWithinSeconds: 3.5 * 86_400,
    fencesVolume: () => true,
    storageClusterOf: () => undefined,
    fence: async () => {
      throw new Error('the upkeep never fences');
    },
    lift: async () => {
      throw new Error('the upkeep never lifts');
    },
    verify: async () => {
      throw new Error('not asked');
    },
    storageDaemons: async () => ({ source: 'mon dump', daemons }),
    readRecorded: async (r) => {
      calls.push(`read ${r.node}`);
      return read(r);
    },
    renew: async (r, options) => {
      calls.push(`renew ${r.node} ${r.entries.join(',')}${options.dryRun ? ' dry-run' : ''}`);
      if (options.dryRun) return { kind: 'dry-run', wouldRenew: [...r.entries] };
      for (const e of r.entries) list.set(e, NOW.getTime() + 7 * DAY_MS);
      return { kind: 'renewed', renewed: read(r) };
    },
  };
}

const emptyWorld = (nodes: World['nodes']): World => ({
  nodes,
  vas: [],
  pvs: [],
  power: {},
  disks: {},
  deleted: [],
  providerCalls: { instances: 0, disks: 0 },
});

async function sweepWith(nodes: World['nodes'], list: Map<string, number>, over: object = {}) {
  const calls: string[] = [];
  const w = emptyWorld(nodes);
  const deps = { ...fakeDeps(w), storage: [memoryFencer(list, calls)] };
  const report = await sweep(deps, parseSweepRequest({ cluster: 'prod', ...over }));
  return { report, calls, deps, w };
}

describe('the sweep keeps standing storage fences alive', () => {
  it('lengthens exactly the recorded entries that lapse soon, and leaves a long one alone', async () => {
    const list = new Map([
      ['10.0.0.5/32', NOW.getTime() + 2 * 3600_000],
      ['10.0.9.5/32', NOW.getTime() + 6 * DAY_MS],
      ['10.0.0.77/32', NOW.getTime() + 600_000], // someone else's, on no record
    ]);
    const { report, calls } = await sweepWith(
      [fenced('node-a', ['10.0.0.5/32']), fenced('node-c', ['10.0.9.5/32']), node('node-b')],
      list,
    );
    expect(calls).toEqual(['read node-a', 'renew node-a 10.0.0.5/32', 'read node-c']);
    expect(report.fences).toMatchObject({ fencedNodes: 2, renewed: 1, lost: 0, failed: 0 });
    const a = report.fences.nodes.find((n) => n.node === 'node-a');
    expect(a).toMatchObject({ verdict: 'renew', action: 'renewed' });
    expect(a?.entries[0]?.until).toBe(new Date(NOW.getTime() + 7 * DAY_MS).toISOString());
    expect(report.fences.nodes.find((n) => n.node === 'node-c')).toMatchObject({
      verdict: 'healthy',
      action: 'none',
    });
    expect(list.get('10.0.0.77/32')).toBe(NOW.getTime() + 600_000);
  });

  it('lengthens nothing on a dry run, and says what it would', async () => {
    const list = new Map([['10.0.0.5/32', NOW.getTime() + 3600_000]]);
    const { report, calls } = await sweepWith([fenced('node-a', ['10.0.0.5/32'])], list, {
      remediate: true,
      dryRun: true,
    });
    expect(calls).toEqual(['read node-a', 'renew node-a 10.0.0.5/32 dry-run']);
    expect(report.fences.nodes[0]).toMatchObject({ action: 'would-renew' });
    expect(list.get('10.0.0.5/32')).toBe(NOW.getTime() + 3600_000);
  });

  it('lets them lapse when the machine is proven stopped, asking its provider once', async () => {
    const list = new Map([['10.0.0.5/32', NOW.getTime() + 3600_000]]);
    const providerId = `aws:///us-east-1a/${I_A}`;
    const calls: string[] = [];
    const w = emptyWorld([fenced('node-a', ['10.0.0.5/32'], { providerId })]);
    w.nodes[0] = {
      ...(w.nodes[0] as World['nodes'][number]),
      annotations: {
        [FENCER_ANNOTATION.fenceRecord]: JSON.stringify({
          runId: 'r',
          fencedAt: '2026-03-01T10:00:00Z',
          instanceId: I_A,
          proof: 'stopped',
          taint: TAINT,
          blocklist: ['10.0.0.5/32'],
        }),
      },
    };
    w.power[I_A] = 'stopped';
    const deps = { ...fakeDeps(w), storage: [memoryFencer(list, calls)] };
    const report = await sweep(deps, parseSweepRequest({ cluster: 'prod' }));
    expect(report.fences.nodes[0]).toMatchObject({ verdict: 'may-lapse', action: 'none' });
    expect(report.fences.nodes[0]?.why).toMatch(new RegExp(`${I_A} is stopped`));
    expect(calls).toEqual(['read node-a']);
    expect(w.providerCalls.instances).toBe(1);
  });

  it('keeps renewing while the machine runs or its provider cannot say', async () => {
    for (const fault of [undefined, 'ThrottlingException']) {
      const list = new Map([['10.0.0.5/32', NOW.getTime() + 3600_000]]);
      const calls: string[] = [];
      const w = emptyWorld([fenced('node-a', ['10.0.0.5/32'], { providerId: `aws:///us-east-1a/${I_A}` })]);
      w.power[I_A] = 'running';
      if (fault) w.providerFault = fault;
      const deps = { ...fakeDeps(w), storage: [memoryFencer(list, calls)] };
      const report = await sweep(deps, parseSweepRequest({ cluster: 'prod' }));
      expect(report.fences.nodes[0], String(fault)).toMatchObject({ verdict: 'renew', action: 'renewed' });
    }
  });

  it('calls a recorded entry Ceph no longer lists lost, loudly, and adds nothing back', async () => {
    const list = new Map<string, number>();
    const warned: string[] = [];
    const calls: string[] = [];
    const w = emptyWorld([fenced('node-a', ['10.0.0.5/32'])]);
    const deps = {
      ...fakeDeps(w),
      storage: [memoryFencer(list, calls)],
      log: { info() {}, error() {}, warn: (m: string) => warned.push(m) },
    };
    const report = await sweep(deps, parseSweepRequest({ cluster: 'prod' }));
    expect(report.fences).toMatchObject({ lost: 1 });
    expect(report.fences.nodes[0]).toMatchObject({
      verdict: 'lost',
      action: 'none',
      entries: [{ entry: '10.0.0.5/32', until: null }],
    });
    expect(warned).toContain('storage fence upkeep needs attention');
    expect(calls).toEqual(['read node-a']);
    expect(list.size).toBe(0);
    expect(deps.metrics.counts.get('StorageFencesAtRisk')).toBe(1); // what the stack's alarm watches
  });

  it('touches no node whose out-of-service taint is not the one its record names, nor one a run holds', async () => {
    const list = new Map([
      ['10.0.0.5/32', NOW.getTime() + 3600_000],
      ['10.0.0.6/32', NOW.getTime() + 3600_000],
    ]);
    const foreignTaint = { ...TAINT, timeAdded: '2026-03-01T11:11:11Z' };
    const calls: string[] = [];
    const w = emptyWorld([
      fenced('node-a', ['10.0.0.5/32'], { taints: [foreignTaint] }),
      fenced('node-b', ['10.0.0.6/32']),
    ]);
    const base = fakeDeps(w);
    const deps = {
      ...base,
      cluster: {
        ...base.cluster,
        listFencingClaims: async () => ({
          claims: [{ node: 'node-b', runId: 'r-b', renewedAt: NOW.toISOString() }],
          maxInFlight: 1,
          serverTime: NOW.toISOString(),
        }),
      },
      storage: [memoryFencer(list, calls)],
    } as typeof base;
    const report = await sweep(deps, parseSweepRequest({ cluster: 'prod' }));
    expect(report.fences.nodes.map((n) => [n.node, n.action])).toEqual([['node-b', 'skipped']]);
    expect(calls).toEqual([]);
  });

  it('never lengthens a recorded entry that covers another Node’s address', async () => {
    const list = new Map([['10.0.0.0/31', NOW.getTime() + 3600_000]]);
    const { report, calls } = await sweepWith(
      [
        fenced('node-a', ['10.0.0.0/31']),
        node('node-b', { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] }),
      ],
      list,
    );
    expect(report.fences.nodes[0]).toMatchObject({ verdict: 'conflict', action: 'none' });
    expect(report.fences.nodes[0]?.why).toMatch(/node node-b's address 10\.0\.0\.1/);
    expect(calls).toEqual(['read node-a']);
  });

  it('never lengthens a recorded entry that covers a storage daemon’s address', async () => {
    const list = new Map([['10.0.9.0/30', NOW.getTime() + 3600_000]]);
    const calls: string[] = [];
    const w = emptyWorld([fenced('node-a', ['10.0.9.0/30'])]);
    const mons = [{ name: 'mon.a', addresses: ['10.0.9.2'] }];
    const deps = { ...fakeDeps(w), storage: [memoryFencer(list, calls, mons)] };
    const report = await sweep(deps, parseSweepRequest({ cluster: 'prod' }));
    expect(report.fences.nodes[0]).toMatchObject({ verdict: 'conflict', action: 'none' });
    expect(report.fences.nodes[0]?.why).toMatch(/mon\.a's address 10\.0\.9\.2/);
    expect(calls).toEqual(['read node-a']);
    expect(list.get('10.0.9.0/30')).toBe(NOW.getTime() + 3600_000);
  });

  it('says the entries went unchecked where no storage fencer is configured', async () => {
    const w = emptyWorld([fenced('node-a', ['10.0.0.5/32'])]);
    const report = await sweep(fakeDeps(w), parseSweepRequest({ cluster: 'prod' }));
    expect(report.fences).toMatchObject({ fencedNodes: 1, unchecked: 1, failed: 0 });
    expect(report.fences.nodes[0]?.why).toMatch(/not checked, and may lapse/);
  });

  it('reports a storage read that fails for one node and goes on with the next', async () => {
    const list = new Map([['10.0.0.6/32', NOW.getTime() + 3600_000]]);
    const calls: string[] = [];
    const w = emptyWorld([fenced('node-a', ['10.0.0.5/32']), fenced('node-b', ['10.0.0.6/32'])]);
    const fencer = memoryFencer(list, calls);
    const failing: StorageFencer = {
      ...fencer,
      readRecorded: async (r, o) => {
        if (r.node === 'node-a')
          throw Object.assign(new Error('mgr unreachable'), { fault: 'MgrUnreachable' });
        return fencer.readRecorded(r, o);
      },
    };
    const report = await sweep(
      { ...fakeDeps(w), storage: [failing] },
      parseSweepRequest({ cluster: 'prod' }),
    );
    expect(report.fences.nodes.map((n) => [n.node, n.action])).toEqual([
      ['node-a', 'failed'],
      ['node-b', 'renewed'],
    ]);
    expect(report.fences.nodes[0]?.why).toBe('mgr unreachable');
    expect(report.fences.failed).toBe(1);
  });
});
