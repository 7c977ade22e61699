/**
 * NO_ATTACH_CAPACITY: every node a Pending pod's volume could attach to (Ready,
 * schedulable, in the volume's zone, running its CSI driver) already holds as many attachments of that
 * driver as its CSINode allows (`allocatable.count`): the scheduler reports "exceed max volume count".
 */
import { SweepClass } from '../classes.js';
import { NO_PROBE } from '../cross-check.js';
import {
  Compliant,
  finding,
  NextActionKind,
  NotApplicable,
  type SweepRule,
  type SweepVerdict,
} from '../finding.js';
import type { SweepNode, SweepPersistentVolume, SweepPod } from '../model.js';
import { readyAndSchedulable, type SweepIndex, volumesOfPod, zoneOf } from '../sweep-index.js';
import { describePv, pvObject } from './describe.js';

/** A node's attach slots for one driver: used (attachments not being deleted) of allowed. */
function slots(node: SweepNode, driver: string, index: SweepIndex): { used: number; limit?: number } | null {
  const entry = index.csiNodes.get(node.name)?.drivers.find((d) => d.name === driver);
  if (!entry) return null;
  const used = (index.attachmentsByNode.get(node.name) ?? []).filter(
    (va) => va.attacher === driver && !va.deletionTimestamp,
  ).length;
  return { used, ...(entry.allocatableCount === undefined ? {} : { limit: entry.allocatableCount }) };
}

const eligible = (pv: SweepPersistentVolume, node: SweepNode): boolean => {
  if (!readyAndSchedulable(node)) return false;
  const zone = zoneOf(node);
  return pv.zones.length === 0 || (zone !== undefined && pv.zones.includes(zone));
};

export const noAttachCapacity: SweepRule<SweepPod> = {
  class: SweepClass.NoAttachCapacity,
  contract: 'CSINode allocatable.count against attached VolumeAttachments',
  subjects: (index) => index.snapshot.pendingPods,
  check(pod, index) {
    // A scheduled pod found its node; an attach failure there is TARGET_ATTACH_STUCK.
    if (pod.nodeName) return NotApplicable;
    let verdict: SweepVerdict = NotApplicable;
    for (const pv of volumesOfPod(pod, index)) {
      if (!pv.driver || pv.nodeBound) continue;
      const driver = pv.driver;
      const counted = index.snapshot.nodes
        .filter((n) => eligible(pv, n))
        .map((n) => ({ node: n.name, slots: slots(n, driver, index) }))
        .filter((c): c is { node: string; slots: { used: number; limit?: number } } => c.slots !== null);
      if (counted.length === 0) continue;
      const free = counted.some((c) => c.slots.limit === undefined || c.slots.used < c.slots.limit);
      if (free) {
        verdict = Compliant;
        continue;
      }
      return finding({
        class: SweepClass.NoAttachCapacity,
        key: `${pod.namespace}/${pod.name}`,
        summary: `Pod ${pod.namespace}/${pod.name} is Pending: every eligible node already holds its limit of ${driver} volumes`,
        objects: [{ kind: 'Pod', name: pod.name, namespace: pod.namespace, uid: pod.uid }, pvObject(pv.name)],
        evidence: [
          describePv(pv),
          ...counted.map(
            (c) => `CSINode ${c.node}: ${c.slots.used} of ${c.slots.limit} ${driver} attachments used`,
          ),
        ],
        probe: NO_PROBE,
      });
    }
    return verdict;
  },
  advise(draft) {
    return {
      kind: NextActionKind.AddAttachCapacity,
      description:
        "Add a node in the volume's zone (or move volumes off a full node) so an attach slot frees up; " +
        `then ${draft.key} can be scheduled. Check that CSINode allocatable.count is right for the instance type.`,
      automatic: false,
    };
  },
};
