import type { BlocklistEvidence, FenceEntry, ListedFenceEntry } from '../domain/blocklist.js';
import type { ListedRecordedEntry } from '../domain/fence-upkeep.js';
import type { HolderEvidence } from '../domain/observation.js';
import type { AddressHolder } from '../domain/storage-scope.js';

/** A node to isolate at the storage layer. */
export interface StorageFenceTarget {
  /** The Node's name: for messages, and for ranges configured per node. */
  readonly node: string;
  /** The node's InternalIP addresses (`status.addresses`), IPv4 or IPv6. */
  readonly addresses: readonly string[];
  /**
   * IPs or CIDRs the Node declares as its storage-network addresses (annotation
   * `kube-fencer.io/storage-addresses`, already validated), fenced too.
   */
  readonly declared?: readonly string[];
  /** Addresses the storage cluster's witness shows holding the node's images, fenced too (single IPs). */
  readonly witnessed?: readonly string[];
}

/** One of the node's images, as its PersistentVolume names it. */
export interface StorageImageRef {
  readonly pool: string;
  readonly image: string;
}

/**
 * The storage cluster's own account of who holds images (Ceph: each image's watchers, read with a
 * read-only user): a witness independent of what the node's kubelet reports.
 */
export interface StorageWitness {
  /** The image a PersistentVolume of this storage names (`spec.csi.volumeAttributes`), or null. */
  imageOf(attributes: Readonly<Record<string, string>>): StorageImageRef | null;
  /** The clients holding each image now. Throws when any image cannot be read: a partial answer proves nothing. */
  holders(images: readonly StorageImageRef[], options?: StorageCallOptions): Promise<HolderEvidence>;
}

/** The storage cluster's own daemons and their addresses: a fence must never cover them. */
export interface StorageDaemons {
  /** Where the addresses were read from, for evidence (`mon dump and the restful URLs`). */
  readonly source: string;
  readonly daemons: readonly AddressHolder[];
}

/** Bounds on one storage call, retries included: a call that outlives the step's budget must fail. */
export interface StorageCallOptions {
  readonly signal?: AbortSignal;
}

/** Options threaded into every mutating storage call. */
export interface StorageMutationOptions extends StorageCallOptions {
  /** Read and report what would change; never change anything. */
  readonly dryRun: boolean;
}

/** What a fence call did. "Already fenced" is a value, not an error. */
export type StorageFenceOutcome =
  | {
      readonly kind: 'fenced';
      /** Entries this call put in place (or lengthened): the fencer's own, to record for the lift. */
      readonly added: readonly ListedFenceEntry[];
      /** Entries that were already there and long enough (someone else's, or an earlier step's). */
      readonly alreadyPresent: readonly ListedFenceEntry[];
      /** The list read back after the change, confirming every entry. */
      readonly evidence: BlocklistEvidence;
    }
  | { readonly kind: 'already-fenced'; readonly evidence: BlocklistEvidence }
  | {
      readonly kind: 'dry-run';
      readonly wouldAdd: readonly FenceEntry[];
      /** The list as it is now (nothing was changed). */
      readonly evidence: BlocklistEvidence;
    };

/** Which entries to lift: exactly those a fence recorded as its own (`added`). */
export interface StorageLiftRequest {
  readonly node: string;
  /** `FenceEntry.entry` values the fencer added. Anything else on the list is left alone. */
  readonly entries: readonly string[];
}

/** What a lift call did. "Nothing to lift" is a value, not an error. */
export type StorageLiftOutcome =
  | { readonly kind: 'lifted'; readonly removed: readonly string[] }
  | { readonly kind: 'nothing-to-lift'; readonly detail: string }
  | { readonly kind: 'dry-run'; readonly wouldRemove: readonly string[] };

/** What a renewal did: every entry listed again with the full expiry, read back. */
export type StorageRenewOutcome =
  | { readonly kind: 'renewed'; readonly renewed: readonly ListedRecordedEntry[] }
  | { readonly kind: 'dry-run'; readonly wouldRenew: readonly string[] };

/** A PersistentVolume as far as choosing a storage fencer goes. */
export interface StorageVolumeRef {
  /** `spec.csi.driver` (e.g. `rbd.csi.ceph.com`, or Rook's `rook-ceph.rbd.csi.ceph.com`). */
  readonly driver?: string;
}

/**
 * The ways a storage call fails, as stable codes for reasons and metrics. Carried as `fault` by the
 * adapter's errors (whose `name`s stay the domain's, for Step Functions).
 */
export const StorageFault = {
  /** The storage API did not answer (network, timeout, 5xx, TLS): nothing is known. */
  MgrUnreachable: 'MgrUnreachable',
  /** The storage API rejected the fencer's credentials. */
  AuthRefused: 'AuthRefused',
  /** The storage cluster ran the command and said it failed (or answered something unreadable). */
  CommandFailed: 'CommandFailed',
  /** The fence was accepted, but reading the list back does not show every entry. */
  BlocklistNotConfirmed: 'BlocklistNotConfirmed',
  /** The node has no address to fence: no InternalIP and no configured range. */
  NoAddressToFence: 'NoAddressToFence',
  /** The object the fencer would fence the node with exists and is someone else's (a NetworkFence). */
  FenceNotOurs: 'FenceNotOurs',
} as const;
export type StorageFault = (typeof StorageFault)[keyof typeof StorageFault];

/**
 * Isolates a node from shared block storage by its client addresses, so that a node that may still be
 * running can no longer write. One implementation per storage system (Ceph RBD: the OSD blocklist
 * through the ceph-mgr REST API); chosen from the CSI drivers of the node's volumes.
 */
export interface StorageFencer {
  /** The storage system, e.g. `ceph-rbd`. */
  readonly storage: string;
  /** The storage cluster's own witness of who holds images, where the deployment has one. */
  readonly witness?: StorageWitness;
  /** Whether this fencer isolates volumes like `volume` (by its CSI driver). */
  fencesVolume(volume: StorageVolumeRef): boolean;
  /**
   * The storage clusters this fencer's blocklist reaches, as the CSI driver names them (ceph-csi's
   * `clusterID` in a PersistentVolume's `spec.csi.volumeAttributes`); `null`: every volume of its
   * drivers is on its cluster. A volume of any other cluster is never proven by this fencer.
   */
  readonly storageClusters: readonly string[] | null;
  /**
   * The storage cluster a volume names, from its CSI attributes or its volume handle (ceph-csi's
   * `clusterID`); `undefined` when it names none.
   */
  storageClusterOf(volume: {
    readonly attributes?: Readonly<Record<string, string>>;
    readonly handle?: string;
  }): string | undefined;
  /**
   * Put every entry the node needs in place, with an expiry that outlives the run, then read the list
   * back to confirm. Throws (fault `NoAddressToFence`) when the node has nothing to fence it by.
   */
  fence(target: StorageFenceTarget, options: StorageMutationOptions): Promise<StorageFenceOutcome>;
  /** Read the list now and say whether every entry the node needs is there for long enough. */
  verify(target: StorageFenceTarget, options?: StorageCallOptions): Promise<BlocklistEvidence>;
  /** The storage daemons' addresses, read now (a failure throws, like verify). */
  storageDaemons(options?: StorageCallOptions): Promise<StorageDaemons>;
  /** Remove exactly the given entries of the fencer's; other entries on the same addresses stay. */
  lift(request: StorageLiftRequest, options: StorageMutationOptions): Promise<StorageLiftOutcome>;
  /** Each recorded entry as the list shows it now, with its expiry (`null`: not listed). Reads only. */
  readRecorded(
    request: StorageLiftRequest,
    options?: StorageCallOptions,
  ): Promise<readonly ListedRecordedEntry[]>;
  /**
   * How long before it lapses a recorded entry is lengthened by {@link renew}; absent with `renew`
   * where entries do not lapse while a fence stands (csi-addons' last for years).
   */
  readonly renewWithinSeconds?: number;
  /**
   * Lengthen exactly these recorded entries to the full expiry, the node's addresses covered all the
   * while, then read the list back; throws when it does not show every one lengthened.
   */
  renew?(request: StorageLiftRequest, options: StorageMutationOptions): Promise<StorageRenewOutcome>;
}
