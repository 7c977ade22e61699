/**
 * Whether a node's storage fence reaches only that node (SAFETY.md rules 2 and 3): every address or range to
 * be blocklisted is compared, as IP ranges (IPv4 and IPv6, by overlap, never as strings), with every
 * other Node's addresses and with the storage daemons' own addresses. Also the Node annotation that
 * declares a node's storage-network addresses. Pure: no I/O, no Node.js modules.
 */

/** Declares a node's storage-network addresses: comma-separated IPs or CIDRs, added to its fence. */
export const STORAGE_ADDRESSES_ANNOTATION = 'kube-fencer.io/storage-addresses';

/**
 * Widest range one annotation entry may declare: /24 for IPv4 (256 addresses), /120 for IPv6 (the
 * same 256). A node's storage addresses are a handful; anything wider is a typo that would fence others.
 */
export const ANNOTATION_WIDEST_PREFIX = { 4: 24, 6: 120 } as const;

/** At most this many entries in one annotation. */
export const ANNOTATION_MAX_ENTRIES = 16;

/** An IP range: its family, first address and prefix length. */
export interface IpBlock {
  readonly family: 4 | 6;
  readonly start: bigint;
  readonly prefix: number;
}

const width = (family: 4 | 6): number => (family === 4 ? 32 : 128);

function ipv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => (n << 8n) + BigInt(Number(p)), 0n);
}

function ipv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined) => (half ? half.split(':') : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return all.reduce((n, g) => (n << 16n) + BigInt(Number.parseInt(g, 16)), 0n);
}

/** Parses an IP (`10.0.0.5`, `fd00::5`) or CIDR (`10.0.1.0/24`); a message saying why not otherwise. */
export function parseIpBlock(text: string): IpBlock | string {
  const [address = '', prefixText, extra] = text.trim().split('/');
  const v4 = ipv4(address);
  const family = v4 !== undefined ? 4 : 6;
  const value = v4 ?? ipv6(address);
  if (value === undefined || extra !== undefined)
    return `${JSON.stringify(text)} is not an IP address or CIDR`;
  const prefix = prefixText === undefined ? width(family) : Number(prefixText);
  if (prefixText !== undefined && (!/^\d{1,3}$/.test(prefixText) || prefix > width(family)))
    return `${JSON.stringify(text)} has a bad prefix length`;
  const start = value & ~((1n << BigInt(width(family) - prefix)) - 1n);
  if (start !== value) return `${JSON.stringify(text)} has host bits set`;
  return { family, start, prefix };
}

/** Whether two ranges share at least one address (one contains the other's network). */
export function blocksOverlap(a: IpBlock, b: IpBlock): boolean {
  if (a.family !== b.family) return false;
  const shift = BigInt(width(a.family) - Math.min(a.prefix, b.prefix));
  return a.start >> shift === b.start >> shift;
}

/** A blocklist entry as a range: `10.0.0.5/32` as is, Ceph's IP-wide `10.0.0.5:0/0` as its single IP. */
export function entryBlock(entry: string): IpBlock | string {
  const address = /^\[?([0-9a-fA-F:.]+?)\]?:0\/0$/.exec(entry.trim());
  return parseIpBlock(address?.[1] ?? entry);
}

/**
 * Widest range a fence may blocklist: /16 for IPv4, /64 for IPv6. A node's clients are a handful of
 * addresses; a wider entry (a mistyped /8) would fence half a data centre.
 */
export const FENCE_WIDEST_PREFIX = { 4: 16, 6: 64 } as const;

const LOOPBACK = { 4: parseIpBlock('127.0.0.0/8'), 6: parseIpBlock('::1/128') } as const;

/**
 * Why `entry` may never be blocklisted, or `null` when it may: loopback or the unspecified address
 * would cut off the storage cluster's own daemons and admin clients on every host; a range wider than
 * {@link FENCE_WIDEST_PREFIX} would reach far more than one node. An entry that is no IP at all is left
 * to the rules that read it.
 */
export function unfenceableEntry(entry: string): string | null {
  const block = entryBlock(entry);
  if (typeof block === 'string') return null;
  if (block.prefix < FENCE_WIDEST_PREFIX[block.family]) {
    return `${entry} is wider than /${FENCE_WIDEST_PREFIX[block.family]}`;
  }
  const loopback = LOOPBACK[block.family];
  if (typeof loopback !== 'string' && blocksOverlap(block, loopback)) return `${entry} is a loopback address`;
  if (block.start === 0n) return `${entry} is the unspecified address`;
  return null;
}

/** The annotation's entries, or why it is malformed (then nothing may be fenced or tainted). */
export function parseStorageAddresses(
  value: string,
): { ok: true; entries: string[] } | { ok: false; error: string } {
  const entries = value.split(',').map((e) => e.trim());
  const bad = (why: string) => ({
    ok: false as const,
    error: `annotation ${STORAGE_ADDRESSES_ANNOTATION}=${JSON.stringify(value)}: ${why}`,
  });
  if (entries.some((e) => e === '')) return bad('an empty entry (write comma-separated IPs or CIDRs)');
  if (entries.length > ANNOTATION_MAX_ENTRIES) return bad(`more than ${ANNOTATION_MAX_ENTRIES} entries`);
  for (const entry of entries) {
    const block = parseIpBlock(entry);
    if (typeof block === 'string') return bad(block);
    if (block.prefix < ANNOTATION_WIDEST_PREFIX[block.family])
      return bad(`${entry} is wider than /${ANNOTATION_WIDEST_PREFIX[block.family]}`);
  }
  return { ok: true, entries };
}

/** Who besides the node an entry would reach. */
export const ScopeConflictKind = { OtherNode: 'other-node', StorageDaemon: 'storage-daemon' } as const;
export type ScopeConflictKind = (typeof ScopeConflictKind)[keyof typeof ScopeConflictKind];

/** One entry to be blocklisted that covers an address of someone else. */
export interface ScopeConflict {
  readonly kind: ScopeConflictKind;
  /** The entry to be blocklisted. */
  readonly entry: string;
  /** `node node-b`, or the daemon as the storage fencer named it (`mon.a`). */
  readonly party: string;
  /** The party's address the entry covers. */
  readonly address: string;
}

/** Another party's addresses. Addresses that are not IPs (a Hostname) cannot be blocklisted: skipped. */
export interface AddressHolder {
  readonly name: string;
  readonly addresses: readonly string[];
}

function conflictsWith(
  entries: readonly string[],
  holders: readonly AddressHolder[],
  kind: ScopeConflictKind,
) {
  const out: ScopeConflict[] = [];
  for (const entry of entries) {
    const block = entryBlock(entry);
    if (typeof block === 'string') continue;
    for (const holder of holders)
      for (const address of holder.addresses) {
        const theirs = parseIpBlock(address);
        if (typeof theirs !== 'string' && blocksOverlap(block, theirs))
          out.push({ kind, entry, party: holder.name, address });
      }
  }
  return out;
}

/**
 * Every entry of `entries` that would also reach another Node or a storage daemon. Empty when the fence
 * reaches only the node. Other nodes come first: they are the live machines a fence would cut off.
 */
export const scopeConflicts = (
  entries: readonly string[],
  otherNodes: readonly AddressHolder[],
  daemons: readonly AddressHolder[],
): ScopeConflict[] => [
  ...conflictsWith(entries, otherNodes, ScopeConflictKind.OtherNode),
  ...conflictsWith(entries, daemons, ScopeConflictKind.StorageDaemon),
];
