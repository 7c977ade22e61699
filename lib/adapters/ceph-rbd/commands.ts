/**
 * The mon commands the fencer sends through the ceph-mgr `restful` API, built as the JSON text the
 * mon accepts. Pure: tested without a cluster.
 */
import { BlocklistEntryKind, type FenceEntry } from '../../domain/blocklist.js';
import { CephInputError } from './errors.js';

/**
 * How a Ceph cluster spells its blocklist commands:
 * - `range`: releases with CIDR ranges (16.2.15 has them; told apart by the mon's command table),
 *   `osd blocklist range add|rm <cidr>`;
 * - `blocklist`: Pacific without ranges, `osd blocklist add|rm <addr>`;
 * - `blacklist`: Octopus and older, `osd blacklist add|rm <addr>`.
 */
export const BlocklistDialect = {
  Range: 'range',
  Blocklist: 'blocklist',
  Blacklist: 'blacklist',
} as const;
export type BlocklistDialect = (typeof BlocklistDialect)[keyof typeof BlocklistDialect];

/** A mon command: string fields, plus CephFloat fields that must go out as JSON reals. */
export interface MonCommand {
  readonly prefix: string;
  readonly fields?: Readonly<Record<string, string>>;
  /** CephFloat arguments. The mon rejects `86400` ("bad or missing field"); it wants `86400.0`. */
  readonly floats?: Readonly<Record<string, number>>;
}

/** A number as a JSON real: `86400` → `86400.0`; `600.5` and `6e+21` are reals already. */
export function jsonReal(value: number): string {
  if (!Number.isFinite(value)) throw new CephInputError(`not a finite number: ${value}`);
  const text = JSON.stringify(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** The request body for `POST /request`: one JSON object, floats written as reals (JSON.stringify would not). */
export function encodeMonCommand(command: MonCommand): string {
  const strings = JSON.stringify({ prefix: command.prefix, ...command.fields });
  const floats = Object.entries(command.floats ?? {}).map(([k, v]) => `${JSON.stringify(k)}:${jsonReal(v)}`);
  return floats.length === 0 ? strings : `${strings.slice(0, -1)},${floats.join(',')}}`;
}

const prefixOf = (dialect: BlocklistDialect): string =>
  dialect === BlocklistDialect.Blacklist ? 'osd blacklist' : 'osd blocklist';
const opField = (dialect: BlocklistDialect): string =>
  dialect === BlocklistDialect.Blacklist ? 'blacklistop' : 'blocklistop';

/** `osd blocklist ls` (or its old name), as JSON: the addresses, then (with ranges) the ranges. */
export const listCommand = (dialect: BlocklistDialect): MonCommand => ({
  prefix: `${prefixOf(dialect)} ls`,
  fields: { format: 'json' },
});

function entryCommand(
  entry: FenceEntry,
  dialect: BlocklistDialect,
  op: 'add' | 'rm',
  expireSeconds?: number,
): MonCommand {
  const isRange = entry.kind === BlocklistEntryKind.Range;
  if (isRange && dialect !== BlocklistDialect.Range) {
    // An old mon ignores the `range` field and reads `10.0.0.12/32` as the client with nonce 32: a
    // fence that fences nothing. Never send a range to a cluster that does not know them.
    throw new CephInputError(
      `range entry ${entry.entry} cannot be sent to a cluster without range blocklists`,
    );
  }
  const fields: Record<string, string> = isRange ? { range: 'range' } : {};
  fields[opField(dialect)] = op;
  fields.addr = entry.entry;
  return {
    prefix: prefixOf(dialect),
    fields,
    ...(expireSeconds === undefined ? {} : { floats: { expire: expireSeconds } }),
  };
}

/** Blocklists an entry for `expireSeconds`; adding an entry that exists sets its expiry anew. */
export const addCommand = (entry: FenceEntry, dialect: BlocklistDialect, expireSeconds: number): MonCommand =>
  entryCommand(entry, dialect, 'add', expireSeconds);

/** Removes an entry; removing one that is not there succeeds (`… isn't blocklisted`). */
export const removeCommand = (entry: FenceEntry, dialect: BlocklistDialect): MonCommand =>
  entryCommand(entry, dialect, 'rm');

/** The mon's command table, to learn which dialect it speaks (`get_command_descriptions`). */
export const DESCRIBE_COMMANDS: MonCommand = { prefix: 'get_command_descriptions' };

/** One command signature from `get_command_descriptions`: words, then argument descriptors. */
type Signature = readonly (string | { readonly name?: string })[];

/**
 * Reads the dialect from the mon's command table: ranges when `osd blocklist` takes a `range`
 * argument; `undefined` when the mon offers no blocklist command at all.
 */
export function dialectFromDescriptions(outb: string): BlocklistDialect | undefined {
  const table = JSON.parse(outb) as Record<string, { readonly sig?: Signature }>;
  const signatures = Object.values(table).map((c) => c.sig ?? []);
  const takes = (word: string, argument: string) =>
    signatures.some(
      (sig) =>
        sig[0] === 'osd' &&
        sig[1] === word &&
        sig.slice(2).some((a) => typeof a === 'object' && a.name === argument),
    );
  if (takes('blocklist', 'range')) return BlocklistDialect.Range;
  if (takes('blocklist', 'blocklistop')) return BlocklistDialect.Blocklist;
  if (takes('blacklist', 'blacklistop')) return BlocklistDialect.Blacklist;
  return undefined;
}
