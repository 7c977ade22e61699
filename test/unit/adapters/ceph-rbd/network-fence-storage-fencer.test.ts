/**
 * The csi-addons NetworkFence fencer against an in-memory NetworkFence API and a fake `ceph` tool
 * whose blocklist the test writes, standing in for csi-addons' rare answers (a `Failed` result, no
 * answer at all) that the lab's real controller is not made to give. The lab test
 * (test/e2e/rbd-network-fence.test.ts) runs the real controller against a real Ceph.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CephApiError } from '../../../../lib/adapters/ceph-rbd/errors.js';
import {
  NetworkFenceStorageFencer,
  networkFenceName,
} from '../../../../lib/adapters/ceph-rbd/network-fence-storage-fencer.js';
import { parseCephNetworkFenceSettings } from '../../../../lib/adapters/ceph-rbd/settings.js';
import type {
  NetworkFenceObject,
  NetworkFenceSpec,
  NetworkFences,
} from '../../../../lib/ports/network-fences.js';

const TARGET = { node: 'node-a', addresses: ['10.0.0.12'] };
const CEPH_RANGE = (ip: string) => ({ range: `${ip}:0/32`, until: '2031-12-01T00:00:00.000000+0000' });

/** A `ceph` whose `osd blocklist ls` prints what the test last put on the list. */
function fakeCeph(): { path: string; list: (ips: readonly string[]) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-ceph-'));
  const path = join(dir, 'ceph');
  const list = (ips: readonly string[]) =>
    writeFileSync(join(dir, 'blocklist'), `[]${JSON.stringify(ips.map(CEPH_RANGE))}`);
  list([]);
  writeFileSync(path, `#!/bin/sh\ncat ${dir}/blocklist\n`);
  chmodSync(path, 0o755);
  return { path, list };
}

/** NetworkFences in memory; `controller` plays csi-addons after each write. */
class MemoryFences implements NetworkFences {
  readonly objects = new Map<string, NetworkFenceObject>();
  readonly writes: string[] = [];
  #version = 0;
  constructor(
    private readonly controller: (o: NetworkFenceObject) => Partial<NetworkFenceObject> = () => ({}),
  ) {}

  async get(name: string) {
    return this.objects.get(name) ?? null;
  }
  #put(o: NetworkFenceObject): NetworkFenceObject {
    const acted = { ...o, ...this.controller(o) };
    this.objects.set(o.name, acted);
    return acted;
  }
  async create(
    name: string,
    spec: NetworkFenceSpec,
    meta: { labels: Record<string, string>; annotations: Record<string, string> },
  ) {
    this.writes.push(`create ${name} ${spec.fenceState} ${spec.cidrs.join(',')}`);
    return this.#put({
      name,
      uid: `uid-${name}`,
      resourceVersion: String(++this.#version),
      ...meta,
      ...spec,
      result: undefined,
      message: undefined,
      deleting: false,
    });
  }
  async update(current: NetworkFenceObject, spec: NetworkFenceSpec) {
    this.writes.push(`update ${current.name} ${spec.fenceState} ${spec.cidrs.join(',')}`);
    return this.#put({ ...current, ...spec, resourceVersion: String(++this.#version) });
  }
  async delete(current: NetworkFenceObject) {
    this.writes.push(`delete ${current.name}`);
    this.objects.delete(current.name);
  }
}

const settingsWith = (cephPath: string, fenceTimeoutSeconds = 5) =>
  parseCephNetworkFenceSettings({
    networkFenceClass: 'ceph-rbd',
    fenceTimeoutSeconds,
    witness: { user: 'kube-fencer-witness', keyring: '/etc/ceph/w.keyring', cephPath },
  });

/** A fencer on a clock that the polls move forward, so a timeout takes no wall-clock time. */
function fencerWith(fences: NetworkFences, cephPath: string) {
  let now = Date.parse('2026-12-03T10:00:00Z');
  return new NetworkFenceStorageFencer({
    settings: settingsWith(cephPath),
    fences,
    now: () => new Date(now),
    sleep: async (ms) => {
      now += ms;
    },
  });
}

/** csi-addons carrying out a fence on Ceph: the CIDRs listed, `Succeeded`. */
const working = (ceph: ReturnType<typeof fakeCeph>) => (o: NetworkFenceObject) => {
  ceph.list(o.fenceState === 'Fenced' ? o.cidrs.map((c) => c.replace('/32', '')) : []);
  return {
    result: 'Succeeded',
    message: o.fenceState === 'Fenced' ? 'fencing operation successful' : 'unfencing operation successful',
  };
};

describe('the NetworkFence fencer', () => {
  it('fences through one NetworkFence of its own, proven by Ceph’s list, and knows it next time', async () => {
    const ceph = fakeCeph();
    const fences = new MemoryFences(working(ceph));
    const fencer = fencerWith(fences, ceph.path);

    const outcome = await fencer.fence(TARGET, { dryRun: false });

    expect(outcome.kind).toBe('fenced');
    expect(outcome.kind === 'fenced' && outcome.added.map((e) => e.entry)).toEqual(['10.0.0.12/32']);
    expect(fences.writes).toEqual(['create kube-fencer-node-a Fenced 10.0.0.12/32']);
    const made = fences.objects.get('kube-fencer-node-a');
    expect(made?.labels).toEqual({ 'app.kubernetes.io/managed-by': 'kube-fencer' });
    expect(made?.annotations).toEqual({ 'kube-fencer.io/node': 'node-a' });
    expect((await fencer.fence(TARGET, { dryRun: false })).kind).toBe('already-fenced');
    expect(fences.writes).toHaveLength(1);
  });

  it('writes nothing on a dry run, and refuses a NetworkFence of its name that is not its own before any write', async () => {
    const ceph = fakeCeph();
    const fences = new MemoryFences();
    const fencer = fencerWith(fences, ceph.path);
    const dry = await fencer.fence(TARGET, { dryRun: true });
    expect(dry.kind === 'dry-run' && dry.wouldAdd.map((e) => e.entry)).toEqual(['10.0.0.12/32']);
    expect(fences.writes).toEqual([]);

    await fences.create(
      'kube-fencer-node-a',
      { networkFenceClassName: 'other', fenceState: 'Unfenced', cidrs: ['10.0.0.12/32'] },
      { labels: {}, annotations: {} },
    );
    fences.writes.length = 0;
    // Observed before any decision: a storage fault of its own, not retried.
    const seen = await fencer.verify(TARGET).catch((e: unknown) => e);
    expect(seen).toBeInstanceOf(CephApiError);
    expect(seen).toMatchObject({ fault: 'FenceNotOurs', retryable: false });
    expect((seen as Error).message).toMatch(
      /NetworkFence kube-fencer-node-a exists and is not kube-fencer's/,
    );
    // Made between a step's verify and its fence: the same fault, so the retried step refuses with it.
    await expect(fencer.fence(TARGET, { dryRun: false })).rejects.toMatchObject({
      name: 'ProviderApiError',
      fault: 'FenceNotOurs',
      retryable: false,
    });
    await expect(
      fencer.lift({ node: 'node-a', entries: ['10.0.0.12/32'] }, { dryRun: false }),
    ).rejects.toThrow(/not kube-fencer's/);
    expect(fences.writes).toEqual([]);
  });

  it('fails, keeping its record, when csi-addons says Failed, and when Ceph never lists the CIDRs', async () => {
    const ceph = fakeCeph();
    const failing = new MemoryFences(() => ({ result: 'Failed', message: 'rpc error: permission denied' }));
    const error = await fencerWith(failing, ceph.path)
      .fence(TARGET, { dryRun: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CephApiError);
    expect((error as CephApiError).message).toMatch(
      /csi-addons says it failed: rpc error: permission denied/,
    );
    // The NetworkFence stays: it is the record that `unfence` lifts, whatever ceph-csi did with it.
    expect(failing.objects.get('kube-fencer-node-a')?.cidrs).toEqual(['10.0.0.12/32']);

    // "Succeeded" with nothing on Ceph's list is not a fence.
    const lying = new MemoryFences(() => ({ result: 'Succeeded', message: 'fencing operation successful' }));
    const silent = await fencerWith(lying, ceph.path)
      .fence(TARGET, { dryRun: false })
      .catch((e: unknown) => e);
    expect((silent as CephApiError).fault).toBe('BlocklistNotConfirmed');
  });

  it("ends a wait cut short by the step's budget as a storage call to try again, not as an error that ends the run", async () => {
    const ceph = fakeCeph();
    // The budget runs out while csi-addons has the request: right after the NetworkFence is written.
    const budget = new AbortController();
    const fences = new MemoryFences(() => {
      budget.abort();
      return {};
    });
    const error = await fencerWith(fences, ceph.path)
      .fence(TARGET, { dryRun: false, signal: budget.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CephApiError);
    expect((error as CephApiError).retryable).toBe(true);
    expect((error as CephApiError).name).toBe('ProviderApiError');
  });

  it('lifts by its NetworkFence, whatever the node’s addresses are now: Unfenced, Ceph’s list clear, deleted', async () => {
    const ceph = fakeCeph();
    const fences = new MemoryFences(working(ceph));
    const fencer = fencerWith(fences, ceph.path);
    await fencer.fence(TARGET, { dryRun: false });

    const dry = await fencer.lift({ node: 'node-a', entries: ['10.0.0.12/32'] }, { dryRun: true });
    expect(dry).toEqual({ kind: 'dry-run', wouldRemove: ['10.0.0.12/32'] });
    const lifted = await fencer.lift({ node: 'node-a', entries: ['10.0.0.12/32'] }, { dryRun: false });

    expect(lifted).toEqual({ kind: 'lifted', removed: ['10.0.0.12/32'] });
    expect(fences.writes.slice(1)).toEqual([
      'update kube-fencer-node-a Unfenced 10.0.0.12/32',
      'delete kube-fencer-node-a',
    ]);
    expect(await fencer.lift({ node: 'node-a', entries: ['10.0.0.12/32'] }, { dryRun: false })).toMatchObject(
      {
        kind: 'nothing-to-lift',
      },
    );
  });

  it('never says "nothing to lift" while Ceph lists the entries of a NetworkFence someone deleted while Fenced', async () => {
    const ceph = fakeCeph();
    const fences = new MemoryFences(working(ceph));
    const fencer = fencerWith(fences, ceph.path);
    await fencer.fence(TARGET, { dryRun: false });
    // Deleted by hand: ceph-csi unfences only on Fenced -> Unfenced, so the entry stays on Ceph's list.
    fences.objects.clear();

    await expect(
      fencer.lift({ node: 'node-a', entries: ['10.0.0.12/32'] }, { dryRun: false }),
    ).rejects.toThrow(/is gone, yet Ceph still lists 10\.0\.0\.12\/32/);
  });

  it('names each node’s NetworkFence, hashing a name too long for the API', () => {
    expect(networkFenceName('node-a')).toBe('kube-fencer-node-a');
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(networkFenceName(long)).toMatch(/^kube-fencer-[0-9a-f]{32}$/);
    expect(networkFenceName(long)).not.toBe(networkFenceName(`${long.slice(0, -1)}e`));
  });
});
