/**
 * IP addresses and CIDR ranges in the spellings Ceph uses: pure, so the rules (what may be fenced, how
 * an entry is written and read back) are tested without a cluster.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { FENCE_WIDEST_PREFIX, unfenceableEntry } from '../../domain/storage-scope.js';
import { CephInputError } from './errors.js';

/** An IP address or a CIDR range, parsed. */
export interface IpRange {
  readonly family: 4 | 6;
  /** The network address, canonical (`10.0.0.0`, `fd00::5`). */
  readonly network: string;
  readonly prefix: number;
}

/** Widest ranges accepted in configuration and fenced at all: the domain's rule (storage-scope.ts). */
export const WIDEST_PREFIX = FENCE_WIDEST_PREFIX;

const bits = (family: 4 | 6): number => (family === 4 ? 32 : 128);

/** The canonical text of an IP address (IPv6 compressed, lower case), or `undefined` if it is not one. */
export function canonicalIp(text: string): string | undefined {
  const trimmed = text.trim();
  if (isIPv4(trimmed)) return trimmed.split('.').map(Number).join('.');
  if (isIPv6(trimmed)) return new URL(`http://[${trimmed}]/`).hostname.slice(1, -1);
  return undefined;
}

const familyOf = (ip: string): 4 | 6 => (isIPv4(ip) ? 4 : 6);

/** The address as a number, for containment checks. */
export function ipToBigInt(ip: string): bigint {
  if (isIPv4(ip)) return ip.split('.').reduce((n, part) => (n << 8n) + BigInt(Number(part)), 0n);
  // Expand `::` into zero groups, then read eight 16-bit groups.
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = Array(8 - headGroups.length - tailGroups.length).fill('0');
  const groups = ip.includes('::') ? [...headGroups, ...zeros, ...tailGroups] : headGroups;
  return groups.reduce((n, g) => (n << 16n) + BigInt(Number.parseInt(g, 16)), 0n);
}

function bigIntToIp(value: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => Number((value >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) =>
    ((value >> BigInt(112 - i * 16)) & 0xffffn).toString(16),
  );
  return canonicalIp(groups.join(':')) ?? groups.join(':');
}

const mask = (family: 4 | 6, prefix: number): bigint => {
  const width = BigInt(bits(family));
  return ((1n << width) - 1n) ^ ((1n << (width - BigInt(prefix))) - 1n);
};

/** Parses `10.0.0.12`, `10.1.0.0/24` or `fd00::/64`; a bare address is a single-host range. */
export function parseRange(text: string): IpRange {
  const [address = '', prefixText, extra] = text.trim().split('/');
  const ip = canonicalIp(address);
  if (!ip || extra !== undefined) throw new CephInputError(`not an IP address or CIDR range: ${text}`);
  const family = familyOf(ip);
  const prefix = prefixText === undefined ? bits(family) : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? '0') || prefix > bits(family)) {
    throw new CephInputError(`bad prefix length in ${text}`);
  }
  const value = ipToBigInt(ip);
  if ((value & mask(family, prefix)) !== value) {
    const network = bigIntToIp(value & mask(family, prefix), family);
    throw new CephInputError(`${text} has host bits set; did you mean ${network}/${prefix}?`);
  }
  return { family, network: ip, prefix };
}

/** The range of `prefix` bits around `ip`, host bits cleared (Ceph keeps `10.9.8.5/24` as typed). */
export function rangeAround(ip: string, prefix: number): IpRange {
  const family = familyOf(ip);
  const width = Math.min(Math.max(prefix, 0), bits(family));
  return { family, network: bigIntToIp(ipToBigInt(ip) & mask(family, width), family), prefix: width };
}

/** `10.0.0.12/32`, `fd00::5/128`: the canonical spelling of a range. */
export const rangeText = (range: IpRange): string => `${range.network}/${range.prefix}`;

/** Whether `ip` lies inside `range`. */
export function rangeContains(range: IpRange, ip: string): boolean {
  if (familyOf(ip) !== range.family) return false;
  return (ipToBigInt(ip) & mask(range.family, range.prefix)) === ipToBigInt(range.network);
}

/**
 * Addresses that must never be fenced: blocklisting loopback or "any" would cut off the storage
 * cluster's own daemons and admin clients on every host (the mgr's own librados included).
 */
export function unfenceableReason(range: IpRange): string | undefined {
  return unfenceableEntry(rangeText(range)) ?? undefined;
}

/** Every address of a range, for clusters that can only blocklist single addresses (bounded). */
export function expandRange(range: IpRange, limit: number): string[] {
  const size = 1n << BigInt(bits(range.family) - range.prefix);
  if (size > BigInt(limit)) {
    throw new CephInputError(
      `range ${rangeText(range)} has ${size} addresses; this Ceph cluster has no range blocklist and at most ${limit} single addresses are fenced per range`,
    );
  }
  const start = ipToBigInt(range.network);
  return Array.from({ length: Number(size) }, (_, i) => bigIntToIp(start + BigInt(i), range.family));
}

/** Ceph's spelling of an address in an entity address: IPv6 in brackets. */
export const cephHost = (ip: string): string => (isIPv6(ip) ? `[${ip}]` : ip);
