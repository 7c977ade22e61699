/**
 * NO_HEALTHY_NODE_IN_PV_ZONE: a zonal PV can only be
 * attached in its zone. When that zone has no Ready, schedulable node, its Pending pod waits forever;
 * fencing cannot help, only capacity in the zone or application-level replication.
 */
import { SweepClass } from '../classes.js';
import { NO_PROBE } from '../cross-check.js';
import { Compliant, finding, NextActionKind, NotApplicable, type SweepRule } from '../finding.js';
import type { SweepPersistentVolume, SweepPod } from '../model.js';
import {
  describeNodeState,
  readyAndSchedulable,
  type SweepIndex,
  volumesOfPod,
  zoneOf,
} from '../sweep-index.js';
import { describePv, pvObject } from './describe.js';

/** A PV and the Pending pods that mount it. */
export interface PvWithPendingPods {
  readonly pv: SweepPersistentVolume;
  readonly pods: readonly SweepPod[];
}

/** The PVs of the Pending pods, each with its pods. */
export function pendingVolumes(index: SweepIndex): PvWithPendingPods[] {
  const byPv = new Map<string, { pv: SweepPersistentVolume; pods: SweepPod[] }>();
  for (const pod of index.snapshot.pendingPods) {
    for (const pv of volumesOfPod(pod, index)) {
      const entry = byPv.get(pv.name) ?? { pv, pods: [] };
      entry.pods.push(pod);
      byPv.set(pv.name, entry);
    }
  }
  return [...byPv.values()];
}

const podRef = (pod: SweepPod) => ({
  kind: 'Pod' as const,
  name: pod.name,
  namespace: pod.namespace,
  uid: pod.uid,
});

export const noHealthyNodeInPvZone: SweepRule<PvWithPendingPods> = {
  class: SweepClass.NoHealthyNodeInPvZone,
  contract: 'a zonal disk cannot leave its zone',
  subjects: pendingVolumes,
  check({ pv, pods }, index) {
    // Local PVs wait for their one node by design; PVs without zones can go anywhere.
    if (pv.zones.length === 0 || pv.nodeBound) return NotApplicable;
    const inZone = index.snapshot.nodes.filter((n) => {
      const zone = zoneOf(n);
      return zone !== undefined && pv.zones.includes(zone);
    });
    if (inZone.some(readyAndSchedulable)) return Compliant;
    return finding({
      class: SweepClass.NoHealthyNodeInPvZone,
      key: pv.name,
      summary: `PersistentVolume ${pv.name} lives in ${pv.zones.join(', ')}, which has no Ready, schedulable node; ${pods.length} pod(s) using it are Pending`,
      objects: [pvObject(pv.name), ...pods.map(podRef)],
      evidence: [
        describePv(pv),
        ...pods.map(
          (p) =>
            `pod ${p.namespace}/${p.name}: ${p.phase}${p.nodeName ? ` on ${p.nodeName}` : ', unscheduled'}`,
        ),
        inZone.length === 0
          ? `no node in ${pv.zones.join(', ')}`
          : `nodes in ${pv.zones.join(', ')}: ${inZone.map((n) => describeNodeState(n, index)).join('; ')}`,
      ],
      probe: NO_PROBE,
    });
  },
  advise(draft, _cross, index) {
    const pv = index.persistentVolumes.get(draft.key);
    const zones = pv?.zones.join(', ') ?? 'its zone';
    return {
      kind: NextActionKind.RestoreZone,
      description:
        `The disk cannot move out of ${zones}. Bring a node in ${zones} back (or add one), or fail over at the ` +
        'application level (a replica in another zone); fencing alone will not let this pod start.',
      automatic: false,
    };
  },
};
