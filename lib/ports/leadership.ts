/**
 * Leadership among the replicas of `fencer controller`: one record, kept in a coordination.k8s.io/v1
 * Lease, that names the replica allowed to act. Implemented by lib/adapters/kubernetes/leader-lease.ts;
 * judged by lib/app/controller/leader-election.ts.
 */

/** What the Lease says: who leads, for how long a silent leader keeps it, and how often it changed hands. */
export interface LeaderRecord {
  readonly holder: string;
  readonly leaseDurationSeconds: number;
  /** When the holder last renewed, as it wrote it (ISO 8601). Informative only: never compared to a local clock. */
  readonly renewTime: string;
  readonly acquireTime: string;
  readonly transitions: number;
}

/** The record as read, with the version a write must match. */
export interface ReadLeaderRecord {
  readonly record: LeaderRecord | null;
  readonly resourceVersion: string;
}

/** The Lease itself: read, and written only over the version read (a concurrent writer gets a conflict). */
export interface LeaderLock {
  /** Null when the Lease does not exist yet. */
  read(): Promise<ReadLeaderRecord | null>;
  /** Creates the Lease with `record`; false when another replica created it first. */
  create(record: LeaderRecord): Promise<boolean>;
  /** Writes `record` over `resourceVersion`; false when the Lease changed since it was read. */
  update(resourceVersion: string, record: LeaderRecord): Promise<boolean>;
  /** Where the Lease is, for logs. */
  describe(): string;
}
