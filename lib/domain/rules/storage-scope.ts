/**
 * A storage fence reaches only the node (SAFETY.md rules 2 and 3): the Node's declared storage addresses
 * must be readable, no entry may be loopback, unspecified or too wide, and no entry to be blocklisted
 * may cover a storage daemon's address. (Entries that
 * cover another Node's address: `addressesUnique` in storage.ts.) Refusals, before any mutation.
 */
import { Compliant, halt, NotApplicable } from '../decision.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { type ScopeConflict, ScopeConflictKind, unfenceableEntry } from '../storage-scope.js';
import type { FenceRule } from './context.js';

/** One evidence line per conflict of `kind`: the entry, the other party and its address. */
export const describeConflicts = (conflicts: readonly ScopeConflict[], kind: ScopeConflictKind): string[] =>
  conflicts
    .filter((c) => c.kind === kind)
    .map((c) => {
      const party = kind === ScopeConflictKind.OtherNode ? `node ${c.party}` : c.party;
      return `blocklist entry ${c.entry} covers ${c.address}, an address of ${party}`;
    });

export const declaredAddressesValid: FenceRule = {
  id: 'declared-addresses-valid',
  contract: 'SAFETY.md rule 10: a malformed storage-addresses annotation is bad input; nothing is fenced',
  check: (ctx) => {
    const storage = ctx.observation.storage;
    if (!ctx.plan.storage || storage === null || storage.declaredError === null) return NotApplicable;
    return halt(Phase.Refused, Reason.StorageAddressesMalformed, [storage.declaredError]);
  },
};

export const entriesFenceable: FenceRule = {
  id: 'entries-fenceable',
  contract:
    "SAFETY.md rules 6 and 2: a blocklist entry is the fenced node's alone: never loopback, the unspecified address, or a range wider than /16 (/64)",
  check: (ctx) => {
    const storage = ctx.observation.storage;
    if (!ctx.plan.storage || storage === null) return NotApplicable;
    // What would be blocklisted: the storage fencer's plan when it answered, else the node's own entries.
    const entries = storage.blocklist.ok
      ? storage.blocklist.value.expected.map((e) => e.entry)
      : [...storage.addresses, ...storage.declared, ...(storage.witnessed ?? [])];
    const named = entries.flatMap((entry) => {
      const why = unfenceableEntry(entry);
      return why === null ? [] : [`blocklist entry ${why}`];
    });
    if (named.length === 0) return Compliant;
    return halt(Phase.Refused, Reason.AddressNotFenceable, named);
  },
};

export const awayFromStorageDaemons: FenceRule = {
  id: 'away-from-storage-daemons',
  contract: "SAFETY.md rules 2 and 3: a blocklist never covers a storage daemon's address",
  check: (ctx) => {
    const storage = ctx.observation.storage;
    if (!ctx.plan.storage || storage === null) return NotApplicable;
    const named = describeConflicts(storage.conflicts, ScopeConflictKind.StorageDaemon);
    if (named.length === 0) return Compliant;
    return halt(Phase.Refused, Reason.AddressOfStorageDaemon, named);
  },
};
