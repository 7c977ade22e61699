/** Helpers for tests against the lab's Ceph: the fencer's settings for it, and what to wait for. */

import type { CephLab } from '../../lab/ceph/ceph-lab.js';
import type { Holder, HolderEvent } from '../../lab/ceph/holder.js';
import { eventually } from '../../lab/kube-wait.js';
import { CephRbdStorageFencer } from '../../lib/adapters/ceph-rbd/ceph-storage-fencer.js';
import { type CephRbdSettingsInput, parseCephRbdSettings } from '../../lib/adapters/ceph-rbd/settings.js';

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

/** Waits until no client watches the image (the OSD dropped a fenced client's watch). */
export const waitWatchersGone = (ceph: CephLab, image: string, timeoutMs = 60_000) =>
  eventually(
    `no watchers on ${ceph.pool}/${image}`,
    async () => ((await ceph.watchers(image)).length === 0 ? true : undefined),
    { timeoutMs, intervalMs: 100 },
  );

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
