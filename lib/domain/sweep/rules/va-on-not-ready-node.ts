/**
 * VA_ON_NOTREADY_NODE: a node NotReady for longer than the threshold still
 * holds attached volumes and nobody is fencing it. The cure is fencing, never deleting the
 * VolumeAttachment: with --remediate the sweep starts the fence use case, within the limits.
 */
import { controlPlaneSignals } from '../../control-plane.js';
import { FENCER_ANNOTATION } from '../../node-marks.js';
import { SweepClass } from '../classes.js';
import { describeInstanceFact } from '../cross-check.js';
import { Compliant, finding, NextActionKind, NotApplicable, type SweepRule } from '../finding.js';
import type { SweepNode } from '../model.js';
import { ageSeconds, describeNodeState, formatAge, hasOutOfServiceTaint } from '../sweep-index.js';
import { describeVa, diskProbe, nodeObject, vaObject } from './describe.js';

export const vaOnNotReadyNode: SweepRule<SweepNode> = {
  class: SweepClass.VaOnNotReadyNode,
  contract: 'fence nodes NotReady > T that hold volumes; SAFETY.md rule 4 limits',
  subjects: (index) => index.snapshot.nodes,
  check(node, index) {
    if (node.ready === 'True') return NotApplicable;
    const attached = (index.attachmentsByNode.get(node.name) ?? []).filter(
      (va) => va.attached && !va.deletionTimestamp,
    );
    if (attached.length === 0) return NotApplicable;
    const age = ageSeconds(node.readySince, index);
    if (age !== null && age < index.snapshot.thresholds.notReadySeconds) return Compliant;
    // Fenced already (the taint is on) or being fenced (a run holds its claim): nothing to start.
    if (hasOutOfServiceTaint(node) || index.fencingsInFlight.has(node.name)) return Compliant;
    const hint = node.providerId?.trim();
    return finding({
      class: SweepClass.VaOnNotReadyNode,
      key: node.name,
      summary: `Node ${node.name} has been NotReady for ${formatAge(age)} and still holds ${attached.length} attached volume(s); no fencing is in progress`,
      objects: [nodeObject(node.name), ...attached.map(vaObject)],
      evidence: [describeNodeState(node, index), ...attached.map((va) => describeVa(va, index))],
      probe: {
        instances: hint ? [hint] : [],
        disks: attached.flatMap((va) =>
          diskProbe(
            va.persistentVolumeName ? index.persistentVolumes.get(va.persistentVolumeName) : undefined,
            hint,
          ),
        ),
      },
    });
  },
  advise(draft, cross, index) {
    const node = index.nodes.get(draft.key);
    const instance = cross?.instances[0];
    const state = instance ? ` (${describeInstanceFact(instance)})` : '';
    const optedOut = node !== undefined && FENCER_ANNOTATION.optOut in node.annotations;
    const controlPlane =
      node !== undefined && controlPlaneSignals({ nodeName: draft.key, labels: node.labels }).length > 0;
    const caveat = optedOut
      ? ' The node opted out of fencing (kube-fencer.io/opt-out): fence it by hand after confirming it is off.'
      : controlPlane
        ? ' It is a control-plane node: fencing needs --allow-control-plane.'
        : '';
    return {
      kind: NextActionKind.FenceNode,
      description: `Fence node ${draft.key}: prove its instance off through the provider, then taint it out-of-service${state}.${caveat}`,
      command: `fencer fence ${draft.key}`,
      automatic: !optedOut && !controlPlane,
    };
  },
};
