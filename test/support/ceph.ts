/** Helpers for tests against the lab's Ceph: the fencer's settings for it, and what to wait for. */

import { BlockList, isIP } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { expect } from 'vitest';
import type { Watcher } from '../../lab/ceph/admin-client.js';
import type { CephLab } from '../../lab/ceph/ceph-lab.js';
import type { Holder, HolderEvent } from '../../lab/ceph/holder.js';
import { eventually } from '../../lab/kube-wait.js';
import { CephRbdStorageFencer } from '../../lib/adapters/ceph-rbd/ceph-storage-fencer.js';
import {
  CEPH_ENV,
  type CephRbdSettingsInput,
  parseCephRbdSettings,
} from '../../lib/adapters/ceph-rbd/settings.js';

/** The fencer's settings for the lab's mgr: its restful key, and its self-signed certificate pinned. */
export const cephSettingsFor = (ceph: CephLab, overrides: Partial<CephRbdSettingsInput> = {}) =>
  parseCephRbdSettings({
    mgrUrl: ceph.restful.url,
    keyName: ceph.restful.keyName,
    key: ceph.restful.key,
    ca: ceph.restful.certificate,
    serverName: ceph.restful.serverName,
    ...overrides,
  });

/** A Ceph RBD storage fencer pointed at the lab. Close it when done. */
export const cephFencerFor = (ceph: CephLab, overrides: Partial<CephRbdSettingsInput> = {}) =>
  new CephRbdStorageFencer({ settings: cephSettingsFor(ceph, overrides) });

/** A watcher's IP: `10.77.3.2` from `10.77.3.2:0/2976520395`, `fd00::2` from `[fd00::2]:0/7`. */
export function watcherIp(addr: string): string {
  const v6 = /^\[([^\]]+)\]/.exec(addr);
  if (v6?.[1]) return v6[1];
  return addr.slice(0, addr.lastIndexOf(':') === -1 ? addr.length : addr.lastIndexOf(':'));
}

/** A watcher as a timeout message names it: address and client. */
export const describeWatcher = (w: Watcher): string => `${w.addr} (client.${w.id})`;

const describeWatchers = (ws: readonly Watcher[]): string =>
  ws.length === 0 ? 'no watchers' : ws.map(describeWatcher).join(', ');

/** A matcher for fenced addresses: IPs (`10.77.3.2`) or CIDRs (`10.77.3.2/32`, `fd00::/120`). */
export function fencedMatcher(fenced: readonly string[]): (ip: string) => boolean {
  if (fenced.length === 0) throw new Error('fencedMatcher: name at least one fenced address');
  const list = new BlockList();
  for (const entry of fenced) {
    const [ip = '', bits] = entry.split('/');
    const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(ip) === 0) throw new Error(`fencedMatcher: ${JSON.stringify(entry)} is not an IP or a CIDR`);
    if (bits === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(bits), type);
  }
  return (ip) => isIP(ip) !== 0 && list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Waits until no client at the fenced addresses watches the image (the OSD dropped the fenced
 * client's watch). Other clients may watch it meanwhile: the replacement maps it as soon as it can,
 * so "no watchers at all" would race it. A timeout names every watcher still there. Returns the
 * watchers left (none of them fenced).
 */
export async function waitNoWatcherAt(
  ceph: CephLab,
  image: string,
  fenced: readonly string[],
  timeoutMs = 60_000,
): Promise<Watcher[]> {
  const isFenced = fencedMatcher(fenced);
  let last: Watcher[] = [];
  return eventually(
    `no watcher of ${ceph.pool}/${image} at ${fenced.join(', ')}`,
    async () => {
      last = await ceph.watchers(image);
      return last.some((w) => isFenced(watcherIp(w.addr))) ? undefined : last;
    },
    { timeoutMs, intervalMs: 100, lastSeen: () => describeWatchers(last) },
  );
}

/** Asserts the image's only watchers are at `addresses` (one each); a failure names every watcher. */
export async function expectOnlyWatchersAt(
  ceph: CephLab,
  image: string,
  addresses: readonly string[],
): Promise<void> {
  const watchers = await ceph.watchers(image);
  expect(
    watchers.map((w) => watcherIp(w.addr)).sort(),
    `watchers of ${ceph.pool}/${image}: ${describeWatchers(watchers)}`,
  ).toEqual([...addresses].sort());
}

/** The errno Ceph gives a blocklisted client: ESHUTDOWN. */
export const EBLOCKLISTED = 108;

/** Waits for a write that fails the way a blocklisted client's writes fail. */
export const waitBlocklistedWrite = (holder: Holder, timeoutMs = 30_000): Promise<HolderEvent> =>
  holder.waitFor(
    'a write refused with errno 108',
    (e) => e.event === 'write' && e.ok === false && e.errno === EBLOCKLISTED,
    timeoutMs,
  );

/** Starts a node's client and waits until it holds the exclusive lock. */
export async function holdLocked(ceph: CephLab, node: string, image: string): Promise<Holder> {
  const holder = ceph.hold(node, image);
  await holder.waitFor(
    'exclusive lock',
    (e) => e.event === 'locked' || e.event === 'lock-failed' || e.event === 'open-failed',
  );
  if (holder.state !== 'locked')
    throw new Error(`${node} could not lock ${image}: ${JSON.stringify(holder.events().at(-1))}`);
  return holder;
}

/**
 * The environment that takes Ceph's own witness away from the fencer (the lab gives it one, as a
 * deployment with `ceph-common` would): an empty `FENCER_CEPH_WITNESS_ID` is no witness.
 */
export const NO_WITNESS: Readonly<Record<string, string>> = { [CEPH_ENV.witnessUser]: '' };

/** One look at Ceph and the Node together: is the node tainted, and does a watcher sit at `address`? */
export interface TaintAndWatchSample {
  readonly tainted: boolean;
  readonly watched: boolean;
}

/**
 * Samples Ceph's watchers of `image` and node `node`'s out-of-service taint together every 100 ms
 * until `during` settles; resolves with what `during` did and every sample. A sample with the taint on
 * and a watcher at `address` is the moment the contract forbids (SAFETY.md rule 1).
 */
export async function sampleTaintAndWatchers<T>(
  ceph: CephLab,
  kubeConfig: KubeConfig,
  watch: { readonly image: string; readonly node: string; readonly address: string },
  during: Promise<T>,
): Promise<{ result: T; samples: TaintAndWatchSample[] }> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const samples: TaintAndWatchSample[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const [watchers, node] = await Promise.all([
        ceph.watchers(watch.image),
        core.readNode({ name: watch.node }),
      ]);
      samples.push({
        tainted: (node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/out-of-service'),
        watched: watchers.some((w) => watcherIp(w.addr) === watch.address),
      });
      await sleep(100);
    }
  })();
  const result = await during.finally(() => {
    sampling = false;
  });
  await sampler;
  return { result, samples };
}
