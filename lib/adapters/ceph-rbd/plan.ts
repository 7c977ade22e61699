/**
 * Which blocklist entries a node needs, and which PersistentVolumes are Ceph RBD: pure rules.
 */
import { BlocklistEntryKind, type FenceEntry } from '../../domain/blocklist.js';
import type { StorageFenceTarget } from '../../ports/storage-fencer.js';
import { canonicalIp, expandRange, parseRange, rangeText, unfenceableReason } from './addresses.js';
import { addressEntry } from './blocklist.js';
import { BlocklistDialect } from './commands.js';
import { CephInputError, NoAddressToFenceError } from './errors.js';

/** ceph-csi's RBD driver name; Rook deploys it as `<operator namespace>.rbd.csi.ceph.com`. */
export const RBD_CSI_DRIVER = 'rbd.csi.ceph.com';

/** Whether a CSI driver name is ceph-csi's RBD driver (plain, Rook-prefixed, or configured). */
export const isRbdDriver = (driver: string | undefined, extra: readonly string[] = []): boolean =>
  driver !== undefined &&
  (driver === RBD_CSI_DRIVER || driver.endsWith(`.${RBD_CSI_DRIVER}`) || extra.includes(driver));

/** What {@link planEntries} reads from the settings. */
export interface PlanSettings {
  readonly extraRanges: Readonly<Record<string, readonly string[]>>;
  readonly maxAddressesPerRange: number;
}

/**
 * The ranges to isolate: each InternalIP as a single-host range, then what the Node declares in its
 * storage-addresses annotation, then the node's configured ranges.
 */
function rangesOf(target: StorageFenceTarget, settings: PlanSettings): { range: string; source: string }[] {
  const out = new Map<string, string>();
  for (const address of target.addresses) {
    const ip = canonicalIp(address);
    if (!ip)
      throw new CephInputError(
        `node ${target.node}: InternalIP ${JSON.stringify(address)} is not an IP address`,
      );
    const range = parseRange(ip);
    const why = unfenceableReason(range);
    if (why) throw new CephInputError(`node ${target.node}: refusing to fence InternalIP ${ip}: ${why}`);
    if (!out.has(rangeText(range))) out.set(rangeText(range), `InternalIP ${ip}`);
  }
  for (const declared of target.declared ?? []) {
    const range = parseRange(declared);
    const why = unfenceableReason(range);
    if (why) throw new CephInputError(`node ${target.node}: refusing to fence declared ${declared}: ${why}`);
    if (!out.has(rangeText(range))) out.set(rangeText(range), `declared storage address ${declared}`);
  }
  for (const address of target.witnessed ?? []) {
    const ip = canonicalIp(address);
    if (!ip)
      throw new CephInputError(
        `node ${target.node}: watcher address ${JSON.stringify(address)} is not an IP`,
      );
    const range = parseRange(ip);
    const why = unfenceableReason(range);
    if (why) throw new CephInputError(`node ${target.node}: refusing to fence watcher address ${ip}: ${why}`);
    if (!out.has(rangeText(range))) out.set(rangeText(range), `watcher address ${ip} (Ceph's witness)`);
  }
  for (const configured of settings.extraRanges[target.node] ?? []) {
    if (!out.has(configured)) out.set(configured, `configured range ${configured}`);
  }
  return [...out].map(([range, source]) => ({ range, source }));
}

/**
 * The entries a node needs on a cluster of `dialect`: CIDR ranges where the cluster has them, IP-wide
 * exact entries (`10.0.0.12:0/0`) otherwise. Throws {@link NoAddressToFenceError} when there is nothing
 * to fence the node by, and a {@link CephInputError} for an address that must never be fenced.
 */
export function planEntries(
  target: StorageFenceTarget,
  settings: PlanSettings,
  dialect: BlocklistDialect,
): FenceEntry[] {
  const ranges = rangesOf(target, settings);
  if (ranges.length === 0) throw new NoAddressToFenceError(target.node);
  if (dialect === BlocklistDialect.Range) {
    return ranges.map(({ range, source }) => ({ kind: BlocklistEntryKind.Range, entry: range, source }));
  }
  const entries = new Map<string, FenceEntry>();
  for (const { range, source } of ranges) {
    for (const ip of expandRange(parseRange(range), settings.maxAddressesPerRange)) {
      const entry = addressEntry(ip);
      if (!entries.has(entry)) entries.set(entry, { kind: BlocklistEntryKind.Address, entry, source });
    }
  }
  return [...entries.values()];
}

/** Whether a node can be planned at all without asking Ceph (it has an address or a configured range). */
export function assertSomethingToFence(target: StorageFenceTarget, settings: PlanSettings): void {
  const declared = target.declared ?? [];
  if (
    target.addresses.length === 0 &&
    declared.length === 0 &&
    (settings.extraRanges[target.node] ?? []).length === 0
  ) {
    throw new NoAddressToFenceError(target.node);
  }
}

/**
 * Reads back an entry the fencer recorded (`10.0.0.12/32` or `10.0.0.12:0/0`), refusing anything that is
 * not of the fencer's own forms: an exact client entry (`…:0/3123456789`) is never the fencer's to lift.
 */
export function recordedEntry(text: string): FenceEntry {
  const address = /^(\[[0-9a-fA-F:.]+\]|[0-9.]+):0\/0$/.exec(text.trim());
  if (address) {
    const ip = canonicalIp((address[1] ?? '').replace(/^\[|\]$/g, ''));
    if (ip) return { kind: BlocklistEntryKind.Address, entry: addressEntry(ip), source: 'recorded' };
  }
  if (text.includes('/')) {
    try {
      return { kind: BlocklistEntryKind.Range, entry: rangeText(parseRange(text)), source: 'recorded' };
    } catch {
      // not a range either
    }
  }
  throw new CephInputError(`not a blocklist entry the fencer makes: ${JSON.stringify(text)}`);
}

/** Each recorded entry (as {@link recordedEntry} reads it) with its expiry on `listed`, or `null`. */
export function recordedAsListed(
  recorded: readonly string[],
  listed: readonly { readonly kind: string; readonly entry: string; readonly until: string }[],
): { entry: string; until: string | null }[] {
  const parsed = recorded.map(recordedEntry);
  const until = new Map(listed.map((l) => [`${l.kind} ${l.entry}`, l.until]));
  return recorded.map((entry, i) => {
    const e = parsed[i] as FenceEntry;
    return { entry, until: until.get(`${e.kind} ${e.entry}`) ?? null };
  });
}
