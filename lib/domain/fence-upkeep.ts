/**
 * Keeping a standing storage fence alive (SAFETY.md rule 6): while a node carries the fencer's own
 * taint, the blocklist entries its fence record names must not lapse, because a machine that was never
 * powered off may still run its old Ceph clients. They may lapse only once the machine is proven off:
 * a machine that boots again has no old client, and a terminated one's address may be given to
 * another machine. Pure: the sweep observes, this decides, the storage fencer renews.
 */
import { isOff, type PowerEvidence } from './instance.js';
import type { Fallible } from './observation.js';
import { type AddressHolder, scopeConflicts } from './storage-scope.js';

/** What the sweep concludes for one fenced node's entries. */
export const UpkeepVerdict = {
  /** Every recorded entry is listed, none lapses within the margin. */
  Healthy: 'healthy',
  /** Some recorded entries lapse within the margin: lengthen exactly those. */
  Renew: 'renew',
  /** The machine is proven off: nothing is lengthened, the entries lapse on their own. */
  MayLapse: 'may-lapse',
  /** A recorded entry is no longer listed: the node may be back in Ceph. Loud; never re-added blindly. */
  Lost: 'lost',
  /** A recorded entry covers another Node's or a storage daemon's address: not the fencer's to keep. */
  Conflict: 'conflict',
} as const;
export type UpkeepVerdict = (typeof UpkeepVerdict)[keyof typeof UpkeepVerdict];

/** One recorded entry as the storage cluster lists it now. */
export interface ListedRecordedEntry {
  readonly entry: string;
  /** When it lapses, ISO 8601; `null` when the storage cluster does not list it. */
  readonly until: string | null;
}

export interface FenceUpkeepInput {
  readonly node: string;
  /** The entries the fence record names: exactly those the fencer added, and nothing else. */
  readonly recorded: readonly string[];
  /** Each recorded entry as listed now (same order as `recorded`). */
  readonly listed: readonly ListedRecordedEntry[];
  /** The machine's power as its provider reports it now; `null` when no provider knows it (bare metal). */
  readonly machine: Fallible<PowerEvidence> | null;
  /** Every other Node with its addresses: an entry that covers one is never lengthened. */
  readonly otherNodes: readonly AddressHolder[];
  /** The storage daemons (mons, mgrs) with their addresses: an entry that covers one is never lengthened. */
  readonly daemons: readonly AddressHolder[];
  /** When the list was read, ISO 8601 (the storage cluster's expiries are compared with it). */
  readonly observedAt: string;
  /** An entry lapsing within this many seconds is lengthened. */
  readonly renewWithinSeconds: number;
}

export interface FenceUpkeepDecision {
  readonly node: string;
  readonly verdict: UpkeepVerdict;
  /** Recorded entries to lengthen now; empty unless the verdict is `renew` or `lost`. */
  readonly renew: readonly string[];
  /** Recorded entries the storage cluster no longer lists. */
  readonly missing: readonly string[];
  /** One sentence for the report and the log. */
  readonly why: string;
}

const list = (entries: readonly string[]): string => entries.join(', ');

/** The machine's power, when it proves the machine off; `null` otherwise (unknown is not off). */
function provenOff(machine: FenceUpkeepInput['machine']): PowerEvidence | null {
  return machine?.ok && isOff(machine.value.state) ? machine.value : null;
}

/** Decides what to do with one fenced node's recorded entries. */
export function decideUpkeep(input: FenceUpkeepInput): FenceUpkeepDecision {
  const { node } = input;
  const missing = input.listed.filter((l) => l.until === null).map((l) => l.entry);
  const decision = (verdict: UpkeepVerdict, why: string, renew: readonly string[] = []) => ({
    node,
    verdict,
    renew,
    missing,
    why,
  });
  const conflicts = scopeConflicts(input.recorded, input.otherNodes, input.daemons);
  if (conflicts.length > 0) {
    const c = conflicts[0];
    return decision(
      UpkeepVerdict.Conflict,
      `recorded entry ${c?.entry} covers ${c?.party}'s address ${c?.address}: nothing is lengthened (check the fence record of ${node})`,
    );
  }
  const off = provenOff(input.machine);
  if (off) {
    return decision(
      UpkeepVerdict.MayLapse,
      `machine ${off.instanceId} is ${off.state} (observed ${off.observedAt}): it has no old client left, so its entries may lapse`,
    );
  }
  const deadline = Date.parse(input.observedAt) + input.renewWithinSeconds * 1000;
  const lapsing = input.listed
    .filter((l) => l.until !== null && Date.parse(l.until) < deadline)
    .map((l) => l.entry);
  if (missing.length > 0) {
    return decision(
      UpkeepVerdict.Lost,
      `${list(missing)} no longer listed while ${node} is fenced and its machine is not proven off: its old clients may reach Ceph again`,
      lapsing,
    );
  }
  if (lapsing.length > 0) {
    return decision(
      UpkeepVerdict.Renew,
      `${list(lapsing)} lapse within ${input.renewWithinSeconds} s while ${node} is fenced and its machine is not proven off`,
      lapsing,
    );
  }
  const next = input.listed.map((l) => l.until ?? '').sort()[0] ?? '';
  return decision(UpkeepVerdict.Healthy, `every recorded entry is listed, the first lapses at ${next}`);
}
