/**
 * VA_NODE_MISSING: the node was deleted (CCM, Karpenter, an operator) before its volume was
 * released. The out-of-service taint can no longer help (it needs the Node object), so this is the one
 * case where deleting the VolumeAttachment is allowed: only with provider proof (SAFETY.md rule 5).
 */
import { SweepClass } from '../classes.js';
import { diskFact } from '../cross-check.js';
import { Compliant, finding, NextActionKind, NotApplicable, type SweepRule } from '../finding.js';
import type { SweepVolumeAttachment } from '../model.js';
import { judgeVolumeAttachmentDeletion } from '../remediation.js';
import { describePv, describeVa, diskProbe, nodeObject, pvObject, vaObject } from './describe.js';

export const vaNodeMissing: SweepRule<SweepVolumeAttachment> = {
  class: SweepClass.VaNodeMissing,
  contract: 'SAFETY.md rule 5: delete only when the node is gone, with provider proof',
  subjects: (index) => index.snapshot.volumeAttachments,
  check(va, index) {
    // A VolumeAttachment already deleting is VA_STUCK_DELETING's business once it is old enough.
    if (va.deletionTimestamp) return NotApplicable;
    if (index.nodes.has(va.nodeName)) return Compliant;
    const pv = va.persistentVolumeName ? index.persistentVolumes.get(va.persistentVolumeName) : undefined;
    return finding({
      class: SweepClass.VaNodeMissing,
      key: va.name,
      summary: `VolumeAttachment ${va.name} is for node ${va.nodeName}, which no longer exists`,
      objects: [vaObject(va), nodeObject(va.nodeName), ...(pv ? [pvObject(pv.name)] : [])],
      evidence: [
        describeVa(va, index),
        `node ${va.nodeName}: not found`,
        pv ? describePv(pv) : `PersistentVolume ${va.persistentVolumeName ?? '(inline)'}: not found`,
      ],
      probe: {
        instances: va.csiNodeId ? [va.csiNodeId] : [],
        disks: diskProbe(pv, va.csiNodeId),
      },
    });
  },
  advise(draft, cross, index) {
    const verdict = judgeVolumeAttachmentDeletion(draft, cross, index);
    if (verdict.allowed) {
      return {
        kind: NextActionKind.DeleteVolumeAttachment,
        description: `Delete VolumeAttachment ${draft.key}: its node is gone and ${verdict.proof}.`,
        command: `fencer sweep --remediate   # or: kubectl delete volumeattachment ${draft.key}`,
        automatic: true,
      };
    }
    const disk = draft.probe.disks[0];
    const known = disk ? diskFact(cross, disk.volumeId) : undefined;
    return {
      kind: NextActionKind.Investigate,
      description:
        `Do not delete VolumeAttachment ${draft.key} yet (${verdict.reason}): ${verdict.detail}. ` +
        (known?.disk.ok
          ? 'Power off the machine that holds the disk through the provider first; the next sweep re-checks.'
          : 'Establish at the provider where the disk is attached before touching the attachment.'),
      automatic: false,
    };
  },
};
