/**
 * TARGET_ATTACH_STUCK: a VolumeAttachment (usually a replacement's, on a new node)
 * has failed to attach for longer than the threshold. Often the old attachment still holds the disk;
 * the finding names it, and the provider says where the disk really is.
 */
import { SweepClass } from '../classes.js';
import { Compliant, finding, NextActionKind, NotApplicable, type SweepRule } from '../finding.js';
import type { SweepVolumeAttachment } from '../model.js';
import { ageSeconds, describeNodeState, formatAge } from '../sweep-index.js';
import { describePv, describeVa, diskProbe, instanceHint, nodeObject, vaObject } from './describe.js';

/** The other attachments of the same PV that still hold it (attached, on another node). */
const holdersOf = (va: SweepVolumeAttachment, all: readonly SweepVolumeAttachment[]) =>
  all.filter((other) => other.name !== va.name && other.attached && other.nodeName !== va.nodeName);

export const targetAttachStuck: SweepRule<SweepVolumeAttachment> = {
  class: SweepClass.TargetAttachStuck,
  contract: 'a downstream blocker, reported apart from fencing',
  subjects: (index) => index.snapshot.volumeAttachments,
  check(va, index) {
    if (va.attached || !va.attachError || va.deletionTimestamp) return NotApplicable;
    const age = ageSeconds(va.attachError.time ?? va.createdAt, index);
    if (age !== null && age < index.snapshot.thresholds.attachErrorSeconds) return Compliant;
    const node = index.nodes.get(va.nodeName);
    const pvName = va.persistentVolumeName;
    const pv = pvName ? index.persistentVolumes.get(pvName) : undefined;
    const holders = pvName ? holdersOf(va, index.attachmentsByPv.get(pvName) ?? []) : [];
    const hint = instanceHint(node, va);
    return finding({
      class: SweepClass.TargetAttachStuck,
      key: va.name,
      summary: `VolumeAttachment ${va.name} has failed to attach to ${va.nodeName} for ${formatAge(age)}: ${va.attachError.message}`,
      objects: [vaObject(va), nodeObject(va.nodeName), ...holders.map(vaObject)],
      evidence: [
        describeVa(va, index),
        node ? describeNodeState(node, index) : `node ${va.nodeName}: not found`,
        ...(pv ? [describePv(pv)] : []),
        ...holders.map((h) => `still held by ${describeVa(h, index)}`),
      ],
      probe: { instances: hint ? [hint] : [], disks: diskProbe(pv, hint) },
    });
  },
  advise(draft, _cross, index) {
    const va = index.attachments.get(draft.key);
    const holder = draft.objects.find((o) => o.kind === 'VolumeAttachment' && o.name !== draft.key);
    const holderVa = holder ? index.attachments.get(holder.name) : undefined;
    const holderNode = holderVa ? index.nodes.get(holderVa.nodeName) : undefined;
    if (holderVa && holderNode && holderNode.ready !== 'True') {
      return {
        kind: NextActionKind.FenceNode,
        description: `The disk is still held by ${holderVa.name} on NotReady node ${holderNode.name}: fence that node to release it.`,
        command: `fencer fence ${holderNode.name}`,
        automatic: false,
      };
    }
    const limit = /limit|exceed|ResourceExhausted/i.test(va?.attachError?.message ?? '');
    return {
      kind: limit ? NextActionKind.AddAttachCapacity : NextActionKind.Investigate,
      description: limit
        ? `Node ${va?.nodeName} is out of attach slots: move a volume off it or let the pod land elsewhere.`
        : 'Read the attachError and the CSI controller logs; the fencing (if any) is done, this is a downstream blocker.',
      command: `kubectl describe volumeattachment ${draft.key}`,
      automatic: false,
    };
  },
};
