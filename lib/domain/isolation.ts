/**
 * How a node's volumes are released, per volume (SAFETY.md rule 1): a disk attached to the node's machine
 * (EBS, an Alibaba cloud disk) needs the machine proven off; a network image (Ceph RBD) needs the node's
 * storage clients proven fenced (its addresses confirmed on the OSD blocklist), or, without a storage
 * fencer, the machine proven off long enough for the image's old watch to be gone. The plan says which
 * proofs this node needs; a run fixes it when it commits, and the release waits until it has them all.
 */
import { type BlocklistEvidence, WATCH_EXPIRY_SECONDS } from './blocklist.js';
import { PowerState } from './instance.js';
import type { Observation } from './observation.js';
import { instant } from './time.js';

/** Which proofs a node's release needs. */
export interface IsolationPlan {
  /** The machine must be proven off (it holds a disk, or an image no storage fencer serves, or nothing). */
  readonly machine: boolean;
  /** The node's storage clients must be proven fenced (it holds an image a storage fencer serves). */
  readonly storage: boolean;
  /**
   * The node holds images no storage fencer serves: after the machine is proven off, their old watches
   * must be given time to expire before they are released.
   */
  readonly watch: boolean;
}

/**
 * The plan for what this observation shows: a node that holds images (attached, or last reported in use
 * by its kubelet) and a storage fencer for them is fenced at the storage layer; anything else (a disk,
 * an image without a storage fencer, no volume at all) needs its machine off. Both proofs where both
 * exist: a storage-fenced node whose machine a compute provider resolves is powered off as well, so the
 * blocklist is never the one barrier against a writer that runs on (its client may use an address the
 * fence did not cover). Only a node with no power API (bare metal) rests on the storage fence alone. An
 * image of a storage cluster no fencer reaches (ceph-csi serving several clusters under one driver name)
 * needs the machine off and its watch expired, never another cluster's blocklist; so does a node whose
 * machine is terminated and whose images Ceph shows no one holding (see terminatedAndUnheld).
 */
export function isolationPlan(observation: Observation): IsolationPlan {
  const attachments = observation.workload.volumeAttachments;
  const disks = attachments.filter((va) => !va.image).length;
  // An image of a storage cluster no fencer reaches is released like one with no fencer at all.
  const { imagesInUse = [], unservedImagesInUse = [] } = observation.workload;
  const unservedAttached = attachments.filter((va) => va.image && va.unservedCluster !== undefined).length;
  const unserved = unservedAttached + unservedImagesInUse.length;
  const served = attachments.length - disks - unservedAttached + imagesInUse.length;
  const storage = served > 0 && observation.storage !== null && !terminatedAndUnheld(observation);
  const hasMachine = observation.instance?.resolved === true;
  const unfenced = unserved > 0 || (served > 0 && !storage);
  return { machine: disks > 0 || !storage || hasMachine || unfenced, storage, watch: unfenced };
}

/**
 * Two sources agree that nothing of the node is left to fence at the storage layer: its provider says
 * the machine is terminated, and the storage cluster's witness shows no watcher of its images at all.
 * A blocklist entry would then only reach whoever the provider gives the address to next; the machine
 * is the proof, and the images wait out their old watches as without a storage fencer. Without a
 * witness, or with a watcher anywhere, the blocklist stays (someone still holds the images).
 */
export function terminatedAndUnheld(observation: Observation): boolean {
  const instance = observation.instance;
  const power = instance?.resolved && instance.power.ok ? instance.power.value : null;
  const holders = observation.storage?.holders;
  // The witness must have looked: it reads the images the attachments name, not those only reported in use.
  const looked =
    holders?.ok === true &&
    holders.value.images.length > 0 &&
    (observation.workload.imagesInUse?.length ?? 0) === 0;
  return power?.state === PowerState.Terminated && looked && holders.value.holders.length === 0;
}

/** The node's images that no storage fencer reaches, for evidence. */
export const unservedImages = (observation: Observation): string[] => [
  ...observation.workload.volumeAttachments
    .filter((va) => va.image && va.unservedCluster !== undefined)
    .map((va) => `${va.persistentVolume ?? va.name} (storage cluster ${va.unservedCluster})`),
  ...(observation.workload.unservedImagesInUse ?? []).map((v) => `${v} (reported in use)`),
];

/** Whether a power-off proven at `proofAt` has outlived the images' old watches by `nowMs`. */
export const watchesExpired = (proofAt: string, nowMs: number): boolean =>
  nowMs - instant(proofAt, 'proofOfOff.observedAt') >= WATCH_EXPIRY_SECONDS * 1000;

/** The blocklist entries listed now, by their canonical spelling. */
export const listedEntries = (evidence: BlocklistEvidence): string[] => evidence.found.map((e) => e.entry);
