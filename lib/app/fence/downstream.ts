import type { FencerDeps } from '../shared/deps.js';

/**
 * What still keeps a released volume from its replacement, once the fence itself is done: the
 * replacement's VolumeAttachment failing to attach (attach limits, the CSI driver), or a pod on the
 * volume that cannot be scheduled (the volume's zone has no Ready node). Reported beside the fence
 * result, never folded into it: the fence did its part.
 */
export async function downstreamBlockers(
  deps: FencerDeps,
  node: string,
  volumes: readonly string[],
): Promise<string[]> {
  if (volumes.length === 0) return [];
  const wanted = new Set(volumes);
  const [vas, pvs] = await Promise.all([
    deps.cluster.listVolumeAttachments(),
    deps.cluster.listPersistentVolumes(),
  ]);
  const blockers: string[] = [];
  for (const va of vas) {
    if (va.nodeName === node || !va.persistentVolumeName || !wanted.has(va.persistentVolumeName)) continue;
    if (va.attachError) {
      blockers.push(
        `volume ${va.persistentVolumeName} cannot attach on ${va.nodeName}: ${va.attachError.message}`,
      );
    }
  }
  for (const pv of pvs) {
    if (!wanted.has(pv.name)) continue;
    const onOtherNode = vas.some((va) => va.persistentVolumeName === pv.name && va.nodeName !== node);
    if (!onOtherNode && pv.claim) {
      blockers.push(
        `volume ${pv.name} (claim ${pv.claim.namespace}/${pv.claim.name}) was not yet attached to another node when the fence finished` +
          (pv.zones.length ? `; it can only attach in ${pv.zones.join(', ')}` : ''),
      );
    }
  }
  return blockers;
}
