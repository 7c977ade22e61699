/**
 * What the fencer knows about a node's isolation at the storage layer (Ceph RBD), in storage-neutral
 * terms: the blocklist entries the node needs and what the storage cluster showed. Adapters translate
 * their cluster's words into these; decide() reads only these. Plain JSON, like the rest of the
 * observation: times are ISO 8601 with a zone.
 */

/** How an entry keeps a node's clients out. */
export const BlocklistEntryKind = {
  /** A CIDR range (`ceph osd blocklist range add 10.0.0.12/32`): every client from those addresses. */
  Range: 'range',
  /** An IP-wide exact entry (`ceph osd blocklist add 10.0.0.12:0/0`), for clusters without ranges. */
  Address: 'address',
} as const;
export type BlocklistEntryKind = (typeof BlocklistEntryKind)[keyof typeof BlocklistEntryKind];

/** One blocklist entry the fencer puts in place for a node. */
export interface FenceEntry {
  readonly kind: BlocklistEntryKind;
  /**
   * The entry in the fencer's canonical spelling, stable across calls and what a record of ownership
   * holds: a range as a CIDR (`10.0.0.12/32`, `fd00::5/128`), an address as `10.0.0.12:0/0`.
   */
  readonly entry: string;
  /** Why the node needs it: `InternalIP 10.0.0.12` or `configured range 10.1.0.0/24`. */
  readonly source: string;
}

/** A fence entry as the storage cluster listed it, with the time it lapses on its own. */
export interface ListedFenceEntry extends FenceEntry {
  /** When the storage cluster drops the entry by itself, ISO 8601 (the cluster's clock). */
  readonly until: string;
}

/**
 * Another entry that covers one of the node's addresses but is not of the fencer's kind: typically an
 * exact client (`10.0.0.12:0/3123456789`) that librbd or krbd blocklisted while breaking a stale lock.
 * Evidence only: the fencer never adds or lifts these.
 */
export interface RelatedBlocklistEntry {
  readonly entry: string;
  readonly until: string;
}

/**
 * One observation of a node's blocklist entries. The node is isolated (`confirmed`) when every entry it
 * needs is listed and lasts at least the required margin beyond `observedAt`: an entry about to lapse is
 * `missing`, since the node's clients would be let back in while it still counts as fenced.
 */
export interface BlocklistEvidence {
  readonly node: string;
  /** When the list was read, ISO 8601 (the fencer's clock). */
  readonly observedAt: string;
  /** Every entry the node needs, from its addresses and the configured ranges. */
  readonly expected: readonly FenceEntry[];
  /** Expected entries that are listed and last long enough. */
  readonly found: readonly ListedFenceEntry[];
  /** Expected entries that are not listed, or lapse too soon (`until` is set for those). */
  readonly missing: readonly (FenceEntry & { readonly until?: string })[];
  /** Other entries on the node's addresses (lock breaking, an operator's): never the fencer's to lift. */
  readonly related: readonly RelatedBlocklistEntry[];
  /** `expected` is not empty and nothing is `missing`. */
  readonly confirmed: boolean;
}
