/**
 * What a provider says about one disk (an EBS volume, an ECS cloud disk): whether it exists and which
 * machines it is attached to. Sweeps and diagnose read it to prove a disk released before anything
 * about its VolumeAttachment is touched (safety.md rule 5).
 */
import type { DiskAttachmentState } from './instance.js';

/** One attachment of a disk, as the provider reports it. */
export interface DiskAttachmentFact {
  readonly instanceId: string;
  readonly state: DiskAttachmentState;
  readonly device?: string;
}

/** One observation of a disk. */
export interface DiskState {
  readonly volumeId: string;
  /** False when the provider says the disk does not exist: proof that it is attached nowhere. */
  readonly exists: boolean;
  /** The provider's own word for the disk, e.g. EBS `in-use` or `available`. */
  readonly providerState?: string;
  readonly zone?: string;
  /**
   * The region the provider looked in. A disk the provider says does not exist is absent from that
   * region only: asked in the wrong region, every disk "does not exist".
   */
  readonly region?: string;
  readonly attachments: readonly DiskAttachmentFact[];
  /** When this observation was made, ISO 8601. */
  readonly observedAt: string;
}

/**
 * Whether `zone` lies in `region`. Zone names extend their region's name (EC2 `us-east-1a`, local zones
 * `us-west-2-lax-1a`, ECS `cn-hangzhou-h`), so the region must be followed by a letter or a dash:
 * `us-east-10a` is not in `us-east-1`.
 */
export const zoneInRegion = (zone: string, region: string): boolean =>
  region !== '' && zone.startsWith(region) && /^[a-z-]/.test(zone.slice(region.length));

/**
 * Whether "does not exist" is proof for a disk whose PersistentVolume names `zones`: only when the
 * provider looked in the region every one of those zones belongs to. A PV that names no zone leaves
 * the place unknown, and so the absence unproven.
 */
export const absenceProven = (disk: DiskState, zones: readonly string[]): boolean =>
  !disk.exists &&
  disk.region !== undefined &&
  zones.length > 0 &&
  zones.every((zone) => zoneInRegion(zone, disk.region as string));

/** The attachments that still tie the disk to a machine (anything but `detached`). */
export const liveAttachments = (disk: DiskState): readonly DiskAttachmentFact[] =>
  disk.exists ? disk.attachments.filter((a) => a.state !== 'detached') : [];
