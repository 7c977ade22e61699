/**
 * What surrounds the node in one step's observation: the cluster's health and the fencings in flight,
 * and the node's pods and VolumeAttachments (each attachment marked a network image or not).
 */
import type { StaticPodFacts } from '../../domain/control-plane.js';
import type { ObservedCluster, ObservedWorkload } from '../../domain/observation.js';
import type { NodeView, PodView, VolumeAttachmentView } from '../../ports/cluster.js';
import type { FencerDeps } from '../shared/deps.js';
import { isImage } from './observe-storage.js';

/** The cluster's health and the fencings in flight other than `nodeName`'s, with every Node read. */
export async function observeCluster(
  deps: FencerDeps,
  nodeName: string,
  claimTtlSeconds: number,
): Promise<{ readonly facts: ObservedCluster; readonly nodes: readonly NodeView[] }> {
  const [nodes, version, claims] = await Promise.all([
    deps.cluster.listNodes(),
    deps.cluster.serverVersion().catch(() => null),
    deps.cluster.listFencingClaims(claimTtlSeconds),
  ]);
  const facts: ObservedCluster = {
    totalNodes: nodes.length,
    unhealthyNodes: nodes.filter((n) => n.ready !== 'True').map((n) => n.name),
    fencingsInFlight: claims.claims.filter((c) => c.node !== nodeName).map((c) => c.node),
    maxInFlight: claims.maxInFlight,
    serverVersion: version ? { major: version.major, minor: version.minor } : null,
  };
  return { facts, nodes };
}

const staticPodFacts = (pod: PodView): StaticPodFacts => ({
  namespace: pod.namespace,
  name: pod.name,
  mirror: pod.mirror === true,
  ...(pod.component !== undefined ? { component: pod.component } : {}),
});

/** The node's pods and VolumeAttachments; each attachment says whether it is a network image. */
export async function observeWorkload(
  deps: FencerDeps,
  nodeName: string,
): Promise<{ workload: ObservedWorkload; staticPods: readonly StaticPodFacts[] }> {
  const [pods, vas] = await Promise.all([
    deps.cluster.listPodsOnNode(nodeName),
    deps.cluster.listVolumeAttachments({ nodeName }),
  ]);
  return { workload: toObservedWorkload(deps, pods, vas), staticPods: pods.map(staticPodFacts) };
}

function toObservedWorkload(
  deps: FencerDeps,
  pods: readonly PodView[],
  vas: readonly VolumeAttachmentView[],
): ObservedWorkload {
  return {
    pods: pods.map((p) => ({
      namespace: p.namespace,
      name: p.name,
      uid: p.uid,
      terminating: p.deletionTimestamp !== undefined,
      claimNames: p.claimNames,
      toleratesOutOfService: p.toleratesOutOfService,
    })),
    volumeAttachments: vas.map((va) => ({
      name: va.name,
      uid: va.uid,
      persistentVolume: va.persistentVolumeName ?? null,
      attached: va.attached,
      deleting: va.deletionTimestamp !== undefined,
      attachError: va.attachError?.message ?? null,
      detachError: va.detachError?.message ?? null,
      attacher: va.attacher || null,
      csiNodeId: va.csiNodeId ?? null,
      image: isImage(deps, va.attacher || null),
    })),
  };
}
