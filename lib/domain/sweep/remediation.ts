/**
 * What a sweep may do by itself, and on what proof (SAFETY.md rules 4 and 5). Deleting a
 * VolumeAttachment is allowed only when its node no longer exists AND the provider proves, in this
 * sweep, that the disk is not attached to a machine that could still write to it. Fencing a NotReady
 * node goes through the fence use case, within the blast-radius limits.
 */
import { type DiskState, liveAttachments } from '../disk.js';
import { SweepClass } from './classes.js';
import type { CrossCheck } from './cross-check.js';
import { describeDiskFact, describeInstanceFact, diskFact, instanceFact, provenOff } from './cross-check.js';
import type { FindingDraft } from './finding.js';
import type { SweepIndex } from './sweep-index.js';

/** Stable codes for what a sweep refused or skipped (SAFETY.md rule 9). */
export const SweepReason = {
  RemediationDisabled: 'RemediationDisabled',
  NotRemediable: 'NotRemediable',
  NodeExists: 'NodeExists',
  VolumeAttachmentChanged: 'VolumeAttachmentChanged',
  DiskUnknown: 'DiskUnknown',
  DiskAbsenceUnproven: 'DiskAbsenceUnproven',
  DiskStateUnavailable: 'DiskStateUnavailable',
  DiskAttachedToLiveInstance: 'DiskAttachedToLiveInstance',
  TooManyUnhealthy: 'TooManyUnhealthy',
  FencingCapacityReached: 'FencingCapacityReached',
  OptedOut: 'OptedOut',
  ControlPlaneNotAllowed: 'ControlPlaneNotAllowed',
  NoFencingStarter: 'NoFencingStarter',
} as const;
export type SweepReason = (typeof SweepReason)[keyof typeof SweepReason];

/** The verdict on deleting a VolumeAttachment. */
export type DeletionVerdict =
  | { readonly allowed: true; readonly proof: string }
  | { readonly allowed: false; readonly reason: SweepReason; readonly detail: string };

const refuse = (reason: SweepReason, detail: string): DeletionVerdict => ({ allowed: false, reason, detail });

/**
 * SAFETY.md rule 5 for one VA_NODE_MISSING finding. Every attachment the provider still reports for
 * the disk must be to a machine proven off in this cross-check; a disk the provider says does not
 * exist is attached nowhere. Anything unknown is a refusal, never a guess.
 */
export function judgeVolumeAttachmentDeletion(
  draft: FindingDraft,
  cross: CrossCheck | null,
  index: SweepIndex,
): DeletionVerdict {
  if (draft.class !== SweepClass.VaNodeMissing) {
    return refuse(
      SweepReason.NotRemediable,
      `${draft.class} findings are reported, never remediated by deletion`,
    );
  }
  const va = index.attachments.get(draft.key);
  if (va && index.nodes.has(va.nodeName)) return refuse(SweepReason.NodeExists, `node ${va.nodeName} exists`);
  const probe = draft.probe.disks[0];
  if (!probe) {
    return refuse(SweepReason.DiskUnknown, 'its PersistentVolume (and so its disk) is unknown');
  }
  const fact = diskFact(cross, probe.volumeId);
  if (!fact?.disk.ok) {
    const why = fact ? describeDiskFact(fact) : `disk ${probe.volumeId} was not cross-checked`;
    return refuse(SweepReason.DiskStateUnavailable, why);
  }
  const disk = fact.disk.value;
  if (!disk.exists) return judgeAbsence(disk, probe.zones ?? [], fact.searchedWhereItLives === true);
  const holders = liveAttachments(disk);
  for (const attachment of holders) {
    const holder = instanceFact(cross, attachment.instanceId);
    if (!provenOff(holder)) {
      const state = holder ? describeInstanceFact(holder) : `instance ${attachment.instanceId}: not observed`;
      return refuse(
        SweepReason.DiskAttachedToLiveInstance,
        `disk ${disk.volumeId} is ${attachment.state} to ${attachment.instanceId}, which is not proven off (${state})`,
      );
    }
  }
  const proof =
    holders.length === 0
      ? `the provider reports disk ${disk.volumeId} ${disk.providerState ?? ''} and attached nowhere`.replace(
          '  ',
          ' ',
        )
      : `disk ${disk.volumeId} is attached only to machines proven off (${holders.map((h) => h.instanceId).join(', ')})`;
  return { allowed: true, proof };
}

/**
 * "Not found" proves a disk attached nowhere only where the provider looked: the region its
 * PersistentVolume's zones belong to. Asked in another region, or for a PV that names no zone, the
 * answer says nothing about the disk.
 */
function judgeAbsence(disk: DiskState, zones: readonly string[], searchedThere: boolean): DeletionVerdict {
  const where = disk.region ? `region ${disk.region}` : 'a region it did not name';
  if (searchedThere && zones.length > 0)
    return { allowed: true, proof: `the provider says disk ${disk.volumeId} does not exist in ${where}` };
  return refuse(
    SweepReason.DiskAbsenceUnproven,
    zones.length === 0
      ? `disk ${disk.volumeId} was not found in ${where}, but its PersistentVolume names no zone, so the disk may live elsewhere`
      : `disk ${disk.volumeId} was not found in ${where}, but its PersistentVolume lives in ${zones.join(', ')}: the sweep looked in the wrong place`,
  );
}

/**
 * Limits on starting fencings from a sweep (the fence use case re-checks every one). The in-flight
 * limit is the cluster's, read with the claims (`snapshot.maxInFlight`).
 */
export interface FencingLimits {
  readonly maxUnhealthyNodes: number;
  readonly maxUnhealthyFraction: number;
}

/** How many fencings this sweep may start, or why none (SAFETY.md rule 4). */
export function fencingBudget(
  index: SweepIndex,
  limits: FencingLimits,
): {
  readonly allowed: number;
  readonly refusal?: { readonly reason: SweepReason; readonly detail: string };
} {
  const nodes = index.snapshot.nodes;
  const unhealthy = nodes.filter((n) => n.ready !== 'True').length;
  // As in decide(): the fraction speaks only once more than one node is unhealthy.
  const fractionExceeded =
    unhealthy > 1 && unhealthy / Math.max(1, nodes.length) > limits.maxUnhealthyFraction;
  if (unhealthy > limits.maxUnhealthyNodes || fractionExceeded) {
    return {
      allowed: 0,
      refusal: {
        reason: SweepReason.TooManyUnhealthy,
        detail: `${unhealthy} of ${nodes.length} nodes are unhealthy (limits ${limits.maxUnhealthyNodes} and ${limits.maxUnhealthyFraction * 100}%): the network, not the nodes, is probably broken`,
      },
    };
  }
  const limit = index.snapshot.maxInFlight;
  const free = Math.max(0, limit - index.fencingsInFlight.size);
  return free > 0
    ? { allowed: free }
    : {
        allowed: 0,
        refusal: {
          reason: SweepReason.FencingCapacityReached,
          detail: `${index.fencingsInFlight.size} fencings already in flight (the cluster's limit is ${limit})`,
        },
      };
}
