/**
 * Lengthening blocklist entries that are about to lapse. Ceph (16.2) keeps the old expiry when an
 * existing entry is added again, although it answers "blocklisting … until <new time>": the only way to
 * lengthen one is to remove it and add it anew. Between the two the node would be let back in, so the
 * addresses are first covered by IP-wide entries of their own (a different key), removed once the
 * renewed entry is listed. A crash half-way leaves the cover, which lapses within the hour.
 */
import { BlocklistEntryKind, type FenceEntry } from '../../domain/blocklist.js';
import { expandRange, parseRange } from './addresses.js';
import { addressEntry, type ListedEntry } from './blocklist.js';
import { addCommand, type BlocklistDialect, type MonCommand, removeCommand } from './commands.js';
import { CephApiError } from './errors.js';

/** How long a cover lasts: long enough to finish a renewal, short enough to vanish after a crash. */
export const COVER_SECONDS = 3600;

/** What a renewal needs from its caller. */
export interface RenewalContext {
  readonly node: string;
  readonly dialect: BlocklistDialect;
  readonly expireSeconds: number;
  readonly maxAddressesPerRange: number;
  /** Runs the changes one after another, then lists the blocklist; `[]`: only lists it. */
  readonly changeThenList: (changes: readonly MonCommand[]) => Promise<ListedEntry[]>;
}

const key = (e: { kind: string; entry: string }): string => `${e.kind} ${e.entry}`;

/** IP-wide entries that cover a range entry while it is removed and added again. */
function coverFor(entry: FenceEntry, limit: number): FenceEntry[] {
  if (entry.kind !== BlocklistEntryKind.Range) return [];
  return expandRange(parseRange(entry.entry), limit).map((ip) => ({
    kind: BlocklistEntryKind.Address,
    entry: addressEntry(ip),
    source: `cover while ${entry.entry} is renewed`,
  }));
}

/** Removes and re-adds each lapsing entry with the full expiry, the node covered all the while. */
export async function renewEntries(lapsing: readonly FenceEntry[], ctx: RenewalContext): Promise<void> {
  if (lapsing.length === 0) return;
  const notRenewable = lapsing.filter((e) => e.kind !== BlocklistEntryKind.Range);
  if (notRenewable.length > 0) {
    // Without ranges there is no second entry that covers an address: a renewal would open a gap.
    throw new CephApiError(
      { fault: 'BlocklistNotConfirmed', operation: 'osd blocklist add', retryable: false },
      `${notRenewable.map((e) => e.entry).join(', ')} lapse too soon, and this cluster cannot lengthen an entry ` +
        'without removing it first (no range blocklists to cover the gap): lengthen it by hand ' +
        `(ceph osd blocklist rm, then add with an expiry of ${ctx.expireSeconds} s), then fence again`,
    );
  }
  const listed = new Set((await ctx.changeThenList([])).map(key));
  const cover = lapsing
    .flatMap((e) => coverFor(e, ctx.maxAddressesPerRange))
    .filter((c) => !listed.has(key(c)));
  const add = (e: FenceEntry, seconds: number) => addCommand(e, ctx.dialect, seconds);
  const remove = (e: FenceEntry) => removeCommand(e, ctx.dialect);
  const covered = new Set((await ctx.changeThenList(cover.map((c) => add(c, COVER_SECONDS)))).map(key));
  const uncovered = cover.filter((c) => !covered.has(key(c)));
  if (uncovered.length > 0) {
    throw new CephApiError(
      { fault: 'BlocklistNotConfirmed', operation: 'osd blocklist add', retryable: true },
      `cover entries for ${ctx.node} not listed (${uncovered.map((c) => c.entry).join(', ')}); nothing was removed`,
    );
  }
  // Removed first, in a request of their own: an entry added while it still exists keeps its old expiry.
  await ctx.changeThenList(lapsing.map(remove));
  const renewed = new Set((await ctx.changeThenList(lapsing.map((e) => add(e, ctx.expireSeconds)))).map(key));
  // Keep the cover unless every renewed entry is listed again: the caller's check will say what is missing.
  if (cover.length > 0 && lapsing.every((e) => renewed.has(key(e)))) {
    await ctx.changeThenList(cover.map(remove));
  }
}
