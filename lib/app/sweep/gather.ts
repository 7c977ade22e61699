/**
 * One sweep's observation of the cluster: every node, VolumeAttachment and PV (paginated), the Pending
 * pods only (a server-side field selector: healthy pods are never read), and what those few need
 * (their claims, the CSINodes, the pods of Ready nodes still tainted out-of-service).
 */
import { OUT_OF_SERVICE_TAINT } from '../../domain/node-marks.js';
import type { SweepSnapshot, SweepThresholds } from '../../domain/sweep/model.js';
import type { NodeView, PersistentVolumeClaimView, PodView } from '../../ports/cluster.js';
import { CLAIM_TTL_SECONDS } from '../fence/fence-step.js';
import { mapBounded } from '../shared/bounded.js';
import type { SweepDeps } from './deps.js';

/** Reads in flight at once when a sweep fans out per node or per namespace. */
const FAN_OUT = 4;

/** The claims the pending pods mount, read namespace by namespace and filtered as they arrive. */
async function claimsOf(deps: SweepDeps, pods: readonly PodView[]): Promise<PersistentVolumeClaimView[]> {
  const wanted = new Set(pods.flatMap((p) => p.claimNames.map((c) => `${p.namespace}/${c}`)));
  if (wanted.size === 0) return [];
  const namespaces = [...new Set(pods.filter((p) => p.claimNames.length > 0).map((p) => p.namespace))];
  const lists = await mapBounded(namespaces, FAN_OUT, (ns) => deps.cluster.listPersistentVolumeClaims(ns));
  return lists.flat().filter((c) => wanted.has(`${c.namespace}/${c.name}`));
}

/** The snapshot, its nodes as the port's views (the fence upkeep reads their addresses and taints). */
export type GatheredSnapshot = SweepSnapshot & { readonly nodes: readonly NodeView[] };

/** Observes the cluster for one sweep. */
export async function gatherSnapshot(
  deps: SweepDeps,
  thresholds: SweepThresholds,
): Promise<GatheredSnapshot> {
  const [nodes, volumeAttachments, persistentVolumes, pendingPods, storageClasses, claims] =
    await Promise.all([
      deps.cluster.listNodes(),
      deps.cluster.listVolumeAttachments(),
      deps.cluster.listPersistentVolumes(),
      deps.cluster.listPods({ phase: 'Pending' }),
      deps.cluster.listStorageClasses(),
      deps.cluster.listFencingClaims(CLAIM_TTL_SECONDS),
    ]);
  const taintedReady = nodes.filter(
    (n) => n.ready === 'True' && n.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key),
  );
  const unscheduled = pendingPods.some((p) => !p.nodeName && p.claimNames.length > 0);
  const [podsOnTainted, pvcs, csiNodes] = await Promise.all([
    mapBounded(taintedReady, FAN_OUT, (n) => deps.cluster.listPodsOnNode(n.name)),
    claimsOf(deps, pendingPods),
    unscheduled ? deps.cluster.listCSINodes() : Promise.resolve([]),
  ]);
  return {
    observedAt: deps.clock.now().toISOString(),
    nodes,
    volumeAttachments,
    persistentVolumes,
    pendingPods,
    claims: pvcs,
    storageClasses,
    csiNodes,
    podsOnTaintedNodes: podsOnTainted.flat(),
    fencingsInFlight: claims.claims.map((c) => c.node),
    maxInFlight: claims.maxInFlight,
    thresholds,
  };
}
