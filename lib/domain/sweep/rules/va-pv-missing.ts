/**
 * VA_PV_MISSING: the PersistentVolume was deleted but its VolumeAttachment stayed behind
 * (an A/D controller crash, a manual delete). Its node still exists, so the fencer never deletes it
 * (SAFETY.md rule 5): it reports, with the machine's state, for an operator to confirm and clean up.
 */
import { SweepClass } from '../classes.js';
import { Compliant, finding, NextActionKind, NotApplicable, type SweepRule } from '../finding.js';
import type { SweepVolumeAttachment } from '../model.js';
import { describeNodeState } from '../sweep-index.js';
import { describeVa, instanceHint, nodeObject, vaObject } from './describe.js';

export const vaPvMissing: SweepRule<SweepVolumeAttachment> = {
  class: SweepClass.VaPvMissing,
  contract: 'SAFETY.md rule 5: the node exists, so report only',
  subjects: (index) => index.snapshot.volumeAttachments,
  check(va, index) {
    // Inline volumes have no PV; a missing node is VA_NODE_MISSING; a deleting one is VA_STUCK_DELETING.
    if (!va.persistentVolumeName || va.deletionTimestamp) return NotApplicable;
    const node = index.nodes.get(va.nodeName);
    if (!node) return NotApplicable;
    if (index.persistentVolumes.has(va.persistentVolumeName)) return Compliant;
    const hint = instanceHint(node, va);
    return finding({
      class: SweepClass.VaPvMissing,
      key: va.name,
      summary: `VolumeAttachment ${va.name} is for PersistentVolume ${va.persistentVolumeName}, which no longer exists`,
      objects: [
        vaObject(va),
        { kind: 'PersistentVolume', name: va.persistentVolumeName },
        nodeObject(node.name),
      ],
      evidence: [
        describeVa(va, index),
        `PersistentVolume ${va.persistentVolumeName}: not found`,
        describeNodeState(node, index),
      ],
      probe: { instances: hint ? [hint] : [], disks: [] },
    });
  },
  advise(draft) {
    return {
      kind: NextActionKind.Investigate,
      description:
        `The fencer does not delete ${draft.key} while its node exists. Confirm at the provider that the disk is ` +
        'detached from that node, then delete the VolumeAttachment by hand (no finalizer: it goes at once).',
      command: `kubectl delete volumeattachment ${draft.key}`,
      automatic: false,
    };
  },
};
