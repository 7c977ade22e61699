/**
 * What a provider says about one disk (an EBS volume, an ECS cloud disk): whether it exists and which
 * machines it is attached to. Sweeps and diagnose read it to prove a disk released before anything
 * about its VolumeAttachment is touched (SAFETY.md rule 5).
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

/** The attachments that still tie the disk to a machine (anything but `detached`). */
export const liveAttachments = (disk: DiskState): readonly DiskAttachmentFact[] =>
  disk.exists ? disk.attachments.filter((a) => a.state !== 'detached') : [];
