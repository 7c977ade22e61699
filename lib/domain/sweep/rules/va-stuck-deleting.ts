/**
 * VA_STUCK_DELETING: a VolumeAttachment with a deletionTimestamp that its
 * attacher's finalizer has held for longer than the threshold, usually with a detachError. The
 * provider cross-check says whether the disk is really still attached, and to what.
 */
import { liveAttachments } from '../../disk.js';
import { SweepClass } from '../classes.js';
import { diskFact, instanceFact, provenOff } from '../cross-check.js';
import { Compliant, finding, NextActionKind, NotApplicable, type SweepRule } from '../finding.js';
import type { SweepVolumeAttachment } from '../model.js';
import { ageSeconds, describeNodeState, formatAge } from '../sweep-index.js';
import { describePv, describeVa, diskProbe, instanceHint, nodeObject, vaObject } from './describe.js';

export const vaStuckDeleting: SweepRule<SweepVolumeAttachment> = {
  class: SweepClass.VaStuckDeleting,
  contract: 'report with detachError and the provider attachment state',
  subjects: (index) => index.snapshot.volumeAttachments,
  check(va, index) {
    if (!va.deletionTimestamp) return NotApplicable;
    const age = ageSeconds(va.deletionTimestamp, index);
    if (age !== null && age < index.snapshot.thresholds.stuckDeletingSeconds) return Compliant;
    const node = index.nodes.get(va.nodeName);
    const pv = va.persistentVolumeName ? index.persistentVolumes.get(va.persistentVolumeName) : undefined;
    const hint = instanceHint(node, va);
    return finding({
      class: SweepClass.VaStuckDeleting,
      key: va.name,
      summary: `VolumeAttachment ${va.name} has been deleting for ${formatAge(age)}, held by ${va.finalizers.join(', ') || 'no finalizer'}`,
      objects: [vaObject(va), nodeObject(va.nodeName)],
      evidence: [
        describeVa(va, index),
        node ? describeNodeState(node, index) : `node ${va.nodeName}: not found`,
        ...(pv ? [describePv(pv)] : []),
      ],
      probe: { instances: hint ? [hint] : [], disks: diskProbe(pv, hint) },
    });
  },
  advise(draft, cross) {
    const disk = draft.probe.disks[0] ? diskFact(cross, draft.probe.disks[0].volumeId) : undefined;
    const holders = disk?.disk.ok ? liveAttachments(disk.disk.value) : null;
    const live = holders?.find((h) => !provenOff(instanceFact(cross, h.instanceId)));
    if (live) {
      return {
        kind: NextActionKind.Investigate,
        description:
          `The disk is still ${live.state} to ${live.instanceId}, which is not proven off: a detach from a live, ` +
          'mounted machine sticks (EBS "busy"). Fence that machine rather than force-detaching; never remove the finalizer now.',
        automatic: false,
      };
    }
    if (holders && holders.length > 0) {
      // Every holder is proven off: the provider detaches from a machine that is off.
      const ids = holders.map((h) => h.instanceId).join(', ');
      return {
        kind: NextActionKind.Wait,
        description:
          `The disk is still attached to ${ids}, which the provider reports off: a detach from a machine that is ` +
          "off completes, so the attacher's next retry should drop its finalizer. If its detachError persists, " +
          `detach the disk through the provider; only once the provider shows it detached is removing the finalizer of ${draft.key} by hand safe.`,
        command: `kubectl describe volumeattachment ${draft.key}`,
        automatic: false,
      };
    }
    if (holders && holders.length === 0) {
      return {
        kind: NextActionKind.Wait,
        description:
          'The provider shows the disk detached, so the attacher should drop its finalizer on its next retry. ' +
          `If it does not, read its detachError; removing the finalizer of ${draft.key} by hand is safe only now.`,
        command: `kubectl describe volumeattachment ${draft.key}`,
        automatic: false,
      };
    }
    return {
      kind: NextActionKind.Investigate,
      description:
        'The provider could not say where the disk is attached; check the attacher logs and the provider before touching the finalizer.',
      automatic: false,
    };
  },
};
