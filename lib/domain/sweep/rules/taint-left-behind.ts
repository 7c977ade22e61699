/**
 * TAINT_LEFT_BEHIND: a node is Ready again but still carries the out-of-service
 * taint, with nothing left to drain: every pod that lacks the toleration is evicted from it. The
 * fencer removes only its own taint, only after a power cycle (SAFETY.md rule 6): `fencer unfence`.
 */
import { FENCER_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../../node-marks.js';
import { SweepClass } from '../classes.js';
import { describeInstanceFact } from '../cross-check.js';
import { Compliant, finding, NextActionKind, NotApplicable, type SweepRule } from '../finding.js';
import type { SweepNode } from '../model.js';
import { describeNodeState, hasOutOfServiceTaint } from '../sweep-index.js';
import { nodeObject } from './describe.js';

export const taintLeftBehind: SweepRule<SweepNode> = {
  class: SweepClass.TaintLeftBehind,
  contract: 'SAFETY.md rule 6: only our taint, only after a power cycle',
  subjects: (index) => index.snapshot.nodes,
  check(node, index) {
    if (!hasOutOfServiceTaint(node)) return NotApplicable;
    // Not Ready: the taint still does its job (or the node is still down).
    if (node.ready !== 'True') return Compliant;
    const terminating = (index.podsByNode.get(node.name) ?? []).filter((p) => p.deletionTimestamp);
    const attachments = index.attachmentsByNode.get(node.name) ?? [];
    if (terminating.length > 0 || attachments.length > 0) return Compliant;
    const record = node.annotations[FENCER_ANNOTATION.fenceRecord];
    const hint = node.providerId?.trim();
    return finding({
      class: SweepClass.TaintLeftBehind,
      key: node.name,
      summary: `Node ${node.name} is Ready but still tainted ${OUT_OF_SERVICE_TAINT.key}, with no terminating pods and no VolumeAttachments left`,
      objects: [nodeObject(node.name)],
      evidence: [
        describeNodeState(node, index),
        record
          ? `fence record (added by kube-fencer): ${record}`
          : 'no kube-fencer fence record: someone else added the taint',
        'terminating pods on the node: 0; VolumeAttachments on the node: 0',
      ],
      probe: { instances: hint ? [hint] : [], disks: [] },
    });
  },
  advise(draft, cross, index) {
    const node = index.nodes.get(draft.key);
    const ours = node !== undefined && FENCER_ANNOTATION.fenceRecord in node.annotations;
    const instance = cross?.instances[0];
    const state = instance ? ` Provider: ${describeInstanceFact(instance)}.` : '';
    return ours
      ? {
          kind: NextActionKind.UnfenceNode,
          description: `Remove the fencer's taint once the instance shows a power cycle after the fence.${state}`,
          command: `fencer unfence ${draft.key}`,
          automatic: false,
        }
      : {
          kind: NextActionKind.Investigate,
          description:
            "The taint is not the fencer's, so the fencer never removes it. Remove it by hand once the node has been power-cycled " +
            `(Ceph: after the client is unfenced).${state}`,
          command: `kubectl taint nodes ${draft.key} ${OUT_OF_SERVICE_TAINT.key}-`,
          automatic: false,
        };
  },
};
