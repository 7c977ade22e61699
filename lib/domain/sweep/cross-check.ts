/**
 * The provider's side of a finding: the power state of the machines involved and where the disks are
 * attached. Gathered by the app in batches, then handed to the rules as plain data.
 */
import { type DiskState, liveAttachments } from '../disk.js';
import { isOff, type PowerEvidence } from '../instance.js';
import type { Fallible } from '../observation.js';

/** What a finding asks the provider about. */
export interface ProviderProbe {
  /** Machines to observe, as providerIDs or bare instance ids (a VolumeAttachment's CSI node id). */
  readonly instances: readonly string[];
  /**
   * Disks to look up. `via` names a machine of the same provider (a providerID or instance id);
   * without one, the CSI `driver` picks the provider.
   */
  readonly disks: readonly {
    readonly volumeId: string;
    readonly via?: string;
    readonly driver?: string;
    /** The zones the disk's PersistentVolume is pinned to (its node affinity): where "not found" counts. */
    readonly zones?: readonly string[];
  }[];
}

export const NO_PROBE: ProviderProbe = { instances: [], disks: [] };

/** One machine, as the provider reported it (or why it could not). */
export interface InstanceFact {
  readonly instanceId: string;
  readonly power: Fallible<PowerEvidence>;
}

/** One disk, as the provider reported it (or why it could not). */
export interface DiskFact {
  readonly volumeId: string;
  readonly disk: Fallible<DiskState>;
  /**
   * For a disk the provider says does not exist: whether every zone its PersistentVolume names lies in
   * the region the provider searched, by the provider's own zone rules. Only then is "does not exist"
   * proof; asked in the wrong region, every disk "does not exist". Absent or false: no proof.
   */
  readonly searchedWhereItLives?: boolean;
}

/** The provider cross-check of one finding. */
export interface CrossCheck {
  readonly instances: readonly InstanceFact[];
  readonly disks: readonly DiskFact[];
  /** Hints no configured provider could resolve, with the reason. */
  readonly unresolved: readonly string[];
}

/** The fact about `instanceId`, if the cross-check has one. */
export const instanceFact = (cross: CrossCheck | null, instanceId: string): InstanceFact | undefined =>
  cross?.instances.find((i) => i.instanceId === instanceId);

/** The fact about disk `volumeId`, if the cross-check has one. */
export const diskFact = (cross: CrossCheck | null, volumeId: string): DiskFact | undefined =>
  cross?.disks.find((d) => d.volumeId === volumeId);

/** Whether the provider said, in this cross-check, that the machine is off (stopped, terminated, gone). */
export const provenOff = (fact: InstanceFact | undefined): boolean =>
  fact?.power.ok === true && isOff(fact.power.value.state);

/** Whether the provider said the machine is on (any state that is not off, e.g. running or stopping). */
export const maybeOn = (fact: InstanceFact | undefined): boolean => !provenOff(fact);

/** One line for an instance fact. */
export const describeInstanceFact = (fact: InstanceFact): string =>
  fact.power.ok
    ? `instance ${fact.instanceId}: ${fact.power.value.providerState ?? fact.power.value.state}` +
      (fact.power.value.stateReason ? ` (${fact.power.value.stateReason})` : '')
    : `instance ${fact.instanceId}: unknown (${fact.power.error.name}: ${fact.power.error.message})`;

/** One line for a disk fact. */
export function describeDiskFact(fact: DiskFact): string {
  if (!fact.disk.ok)
    return `disk ${fact.volumeId}: unknown (${fact.disk.error.name}: ${fact.disk.error.message})`;
  const disk = fact.disk.value;
  if (!disk.exists)
    return `disk ${fact.volumeId}: not found${disk.region ? ` in region ${disk.region}` : ' at the provider'}`;
  const live = liveAttachments(disk);
  const where =
    live.length === 0 ? 'attached nowhere' : live.map((a) => `${a.state} to ${a.instanceId}`).join(', ');
  return `disk ${fact.volumeId}: ${disk.providerState ?? 'unknown state'}, ${where}`;
}

/** Why the cross-check could not speak, or `undefined` when every question got an answer. */
export function crossCheckFault(cross: CrossCheck | null): string | undefined {
  if (!cross) return undefined;
  const faults = [
    ...cross.instances.flatMap((i) =>
      i.power.ok ? [] : [`instance ${i.instanceId}: ${i.power.error.name}`],
    ),
    ...cross.disks.flatMap((d) => (d.disk.ok ? [] : [`disk ${d.volumeId}: ${d.disk.error.name}`])),
    ...cross.unresolved,
  ];
  return faults.length === 0 ? undefined : faults.join('; ');
}

/** Every line of a cross-check, for evidence. */
export const describeCrossCheck = (cross: CrossCheck): readonly string[] => [
  ...cross.instances.map(describeInstanceFact),
  ...cross.disks.map(describeDiskFact),
  ...cross.unresolved.map((u) => `not cross-checked: ${u}`),
];
