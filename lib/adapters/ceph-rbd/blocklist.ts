/**
 * Reading Ceph's blocklist: the output of `osd blocklist ls -f json` parsed into entries, and compared
 * with what a node needs. Pure: tested without a cluster.
 */
import {
  BlocklistEntryKind,
  type BlocklistEvidence,
  type FenceEntry,
  type ListedFenceEntry,
  type RelatedBlocklistEntry,
} from '../../domain/blocklist.js';
import { canonicalIp, cephHost, type IpRange, parseRange, rangeAround, rangeContains } from './addresses.js';

/** One entry of Ceph's list, in the fencer's spelling. */
export interface ListedEntry {
  readonly kind: BlocklistEntryKind;
  /** Canonical: a range `10.0.0.12/32`, an address `10.0.0.12:0/3123456789`. */
  readonly entry: string;
  /** Ceph's own spelling: `10.0.0.12:0/32` (range) or `10.0.0.12:0/3123456789`. */
  readonly raw: string;
  /** The address part (the network address for a range). */
  readonly ip: string;
  /** When it lapses, ISO 8601. */
  readonly until: string;
}

/** The list could not be read: never evidence either way. */
export class BlocklistFormatError extends Error {
  override readonly name = 'BlocklistFormatError';
}

/**
 * Splits concatenated JSON values (`[...][...]`): Pacific prints the addresses and then the ranges as two
 * arrays with nothing between them. Tracks strings so a bracket inside one never splits.
 */
export function splitJsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === ']' || c === '}') {
      if (--depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
      if (depth < 0) throw new BlocklistFormatError(`unbalanced JSON in blocklist: ${text.slice(0, 200)}`);
    } else if (depth === 0 && c?.trim()) {
      throw new BlocklistFormatError(`unexpected text in blocklist: ${text.slice(0, 200)}`);
    }
  }
  if (depth !== 0 || inString) throw new BlocklistFormatError(`truncated blocklist: ${text.slice(0, 200)}`);
  return values;
}

/** Ceph's `2026-12-01T20:57:19.685670+0000` as ISO 8601 (`2026-12-01T20:57:19.685Z`). */
export function cephTimeToIso(text: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)$/.exec(text.trim());
  const zone = m?.[3] === 'Z' ? 'Z' : `${m?.[3]?.slice(0, 3)}:${m?.[3]?.slice(-2)}`;
  const millis = (m?.[2] ?? '0').padEnd(3, '0').slice(0, 3);
  const time = m ? Date.parse(`${m[1]}.${millis}${zone}`) : Number.NaN;
  if (Number.isNaN(time)) throw new BlocklistFormatError(`unreadable blocklist time: ${text}`);
  return new Date(time).toISOString();
}

/** `10.0.0.12:0/32` or `[fd00::5]:0/128` into host, port and the number after the slash. */
function splitEntityAddr(raw: string): { ip: string; port: string; tail: string } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d+)\/(\d+)$/.exec(raw.replace(/^cidr:/, ''));
  const ip = canonicalIp(m?.[1] ?? m?.[2] ?? '');
  if (!m || !ip) throw new BlocklistFormatError(`unreadable blocklist entry: ${raw}`);
  return { ip, port: m[3] ?? '0', tail: m[4] ?? '0' };
}

/** An IP-wide address entry, as the fencer writes it: `10.0.0.12:0/0`, `[fd00::5]:0/0`. */
export const addressEntry = (ip: string): string => `${cephHost(ip)}:0/0`;

function toListed(item: unknown): ListedEntry {
  const record = (item ?? {}) as { addr?: unknown; range?: unknown; until?: unknown };
  const until = cephTimeToIso(String(record.until ?? ''));
  if (typeof record.range === 'string') {
    const { ip, tail } = splitEntityAddr(record.range);
    return { kind: BlocklistEntryKind.Range, entry: `${ip}/${tail}`, raw: record.range, ip, until };
  }
  if (typeof record.addr === 'string') {
    const { ip, port, tail } = splitEntityAddr(record.addr);
    const entry = `${cephHost(ip)}:${port}/${tail}`;
    return { kind: BlocklistEntryKind.Address, entry, raw: record.addr, ip, until };
  }
  throw new BlocklistFormatError(`blocklist item is neither an address nor a range: ${JSON.stringify(item)}`);
}

/** Parses the `outb` of `osd blocklist ls -f json`: one array (no ranges) or two (addresses, ranges). */
export function parseBlocklist(outb: string): ListedEntry[] {
  const arrays = splitJsonValues(outb);
  if (arrays.length > 2 || !arrays.every(Array.isArray)) {
    throw new BlocklistFormatError(`expected one or two JSON arrays, got: ${outb.slice(0, 200)}`);
  }
  return (arrays as unknown[][]).flat().map(toListed);
}

/** What {@link evaluateBlocklist} compares. */
export interface EvaluationInput {
  readonly node: string;
  readonly expected: readonly FenceEntry[];
  readonly listed: readonly ListedEntry[];
  readonly observedAt: Date;
  /** An entry lapsing sooner than this after `observedAt` counts as missing. */
  readonly minRemainingSeconds: number;
}

/** The ranges the expected entries cover, to spot other entries on the node's addresses. */
const coverage = (expected: readonly FenceEntry[]): IpRange[] =>
  expected.map((e) =>
    e.kind === BlocklistEntryKind.Range ? parseRange(e.entry) : parseRange(splitEntityAddr(e.entry).ip),
  );

/** Whether a listed entry touches a range: an address inside it, or a range that overlaps it. */
function overlaps(range: IpRange, listed: ListedEntry): boolean {
  if (listed.kind === BlocklistEntryKind.Address) return rangeContains(range, listed.ip);
  const other = rangeAround(listed.ip, Number(listed.entry.split('/')[1]));
  return rangeContains(range, other.network) || rangeContains(other, range.network);
}

/** Compares the list with what the node needs: found, missing (or lapsing), and the related others. */
export function evaluateBlocklist(input: EvaluationInput): BlocklistEvidence {
  const byEntry = new Map(input.listed.map((l) => [`${l.kind} ${l.entry}`, l]));
  const deadline = input.observedAt.getTime() + input.minRemainingSeconds * 1000;
  const found: ListedFenceEntry[] = [];
  const missing: (FenceEntry & { until?: string })[] = [];
  for (const expected of input.expected) {
    const listed = byEntry.get(`${expected.kind} ${expected.entry}`);
    if (listed && Date.parse(listed.until) >= deadline) found.push({ ...expected, until: listed.until });
    else missing.push(listed ? { ...expected, until: listed.until } : expected);
  }
  const ours = new Set(input.expected.map((e) => `${e.kind} ${e.entry}`));
  const ranges = coverage(input.expected);
  const related: RelatedBlocklistEntry[] = input.listed
    .filter((l) => !ours.has(`${l.kind} ${l.entry}`) && ranges.some((r) => overlaps(r, l)))
    .map((l) => ({
      entry: l.kind === BlocklistEntryKind.Range ? `range ${l.entry}` : l.entry,
      until: l.until,
    }));
  return {
    node: input.node,
    observedAt: input.observedAt.toISOString(),
    expected: input.expected,
    found,
    missing,
    related,
    confirmed: input.expected.length > 0 && missing.length === 0,
  };
}
