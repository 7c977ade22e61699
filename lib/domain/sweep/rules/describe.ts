/** Evidence lines and object references shared by the sweep rules. */
import type { ProviderProbe } from '../cross-check.js';
import type { FindingObject } from '../finding.js';
import type { SweepNode, SweepPersistentVolume, SweepVolumeAttachment } from '../model.js';
import { ageSeconds, formatAge, type SweepIndex } from '../sweep-index.js';

export const vaObject = (va: SweepVolumeAttachment): FindingObject => ({
  kind: 'VolumeAttachment',
  name: va.name,
  uid: va.uid,
});
export const nodeObject = (name: string): FindingObject => ({ kind: 'Node', name });
export const pvObject = (name: string): FindingObject => ({ kind: 'PersistentVolume', name });

/** Everything a VolumeAttachment says about itself, in one line. */
export function describeVa(va: SweepVolumeAttachment, index: SweepIndex): string {
  const parts = [
    `VolumeAttachment ${va.name}: attacher ${va.attacher}, node ${va.nodeName}, pv ${va.persistentVolumeName ?? '(inline)'}`,
    `attached=${va.attached}`,
    `created ${formatAge(ageSeconds(va.createdAt, index))} ago`,
  ];
  if (va.csiNodeId) parts.push(`csi node-id ${va.csiNodeId}`);
  if (va.deletionTimestamp) parts.push(`deleting for ${formatAge(ageSeconds(va.deletionTimestamp, index))}`);
  if (va.finalizers.length) parts.push(`finalizers ${va.finalizers.join(',')}`);
  if (va.attachError) parts.push(`attachError "${va.attachError.message}"`);
  if (va.detachError) parts.push(`detachError "${va.detachError.message}"`);
  return parts.join(', ');
}

/** A PV's identity at the provider, in one line. */
export const describePv = (pv: SweepPersistentVolume): string =>
  `PersistentVolume ${pv.name}: driver ${pv.driver ?? 'unknown'}, handle ${pv.volumeHandle ?? 'none'}, ` +
  `${pv.accessModes.join('/') || 'no access modes'}${pv.zones.length ? `, zones ${pv.zones.join(',')}` : ''}` +
  `${pv.claim ? `, claim ${pv.claim.namespace}/${pv.claim.name}` : ''}`;

/** The disk probe for a PV's volume, routed through `via` (a machine of the same provider). */
export const diskProbe = (
  pv: SweepPersistentVolume | undefined,
  via: string | undefined,
): ProviderProbe['disks'][number][] =>
  pv?.volumeHandle
    ? [
        {
          volumeId: pv.volumeHandle,
          zones: pv.zones,
          ...(via ? { via } : {}),
          ...(pv.driver ? { driver: pv.driver } : {}),
        },
      ]
    : [];

/** The machine hint of a node: its providerID when it has one. */
export const instanceHint = (node: SweepNode | undefined, va?: SweepVolumeAttachment): string | undefined =>
  node?.providerId?.trim() || va?.csiNodeId || undefined;
