/**
 * The node as one step sees it: the Node, its Lease and its CSINode in the domain's form, stamped with
 * the API server's time, with the control-plane signs of its labels and of its static pods.
 */
import { controlPlaneSignals, type StaticPodFacts } from '../../domain/control-plane.js';
import { FENCER_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../../domain/node-marks.js';
import type { ObservedNode } from '../../domain/observation.js';
import type { CSINodeView, LeaseView, NodeView } from '../../ports/cluster.js';
import type { FencerDeps } from '../shared/deps.js';
import { parseFenceRecord, toTaintSnapshot } from '../shared/node-marks.js';

/**
 * The Node, its Lease and its CSINode as the domain sees them, read at `readAt`. The control plane is
 * told by its labels here (the common role labels and the operator's `controlPlaneLabels`); its static
 * pods are added by {@link withStaticPods} where the step lists the node's pods.
 */
export function toObservedNode(
  node: NodeView,
  lease: LeaseView | null,
  csiNode: CSINodeView | null,
  readAt: string,
  controlPlaneLabels: readonly string[] = [],
): ObservedNode {
  const signals = controlPlaneSignals({
    nodeName: node.name,
    labels: node.labels,
    extraLabels: controlPlaneLabels,
  });
  return {
    name: node.name,
    uid: node.uid,
    resourceVersion: node.resourceVersion,
    readAt,
    ready: node.ready === 'Missing' ? 'Unknown' : node.ready,
    readyReason: node.readyReason ?? null,
    lastHeartbeat: node.lastHeartbeat ?? null,
    leaseRenewTime: lease?.renewTime ?? null,
    leaseWrittenAt: lease?.writtenAt ?? null,
    providerId: node.providerId?.trim() ? node.providerId : null,
    addresses: node.addresses.map(({ type, address }) => ({ type, address })),
    csiNodeIds: (csiNode?.drivers ?? []).flatMap((d) =>
      d.nodeId ? [{ driver: d.name, nodeId: d.nodeId }] : [],
    ),
    bootId: node.bootId ?? null,
    controlPlane: signals.length > 0,
    ...(signals.length > 0 ? { controlPlaneSignals: signals } : {}),
    optedOut: FENCER_ANNOTATION.optOut in node.annotations,
    outOfServiceTaints: node.taints.filter((t) => t.key === OUT_OF_SERVICE_TAINT.key).map(toTaintSnapshot),
    fenceRecord: parseFenceRecord(node.annotations),
  };
}

/** The node with the control-plane signs its static pods (etcd, kube-apiserver) give, if any. */
export function withStaticPods(node: ObservedNode, pods: readonly StaticPodFacts[]): ObservedNode {
  const fromPods = controlPlaneSignals({ nodeName: node.name, labels: {}, pods });
  if (fromPods.length === 0) return node;
  const signals = [...(node.controlPlaneSignals ?? []), ...fromPods];
  return { ...node, controlPlane: true, controlPlaneSignals: signals };
}

/**
 * Reads the node, its Lease and its CSINode, stamped with the API server's time when it served the
 * Lease: liveness is aged on the clock the kubelet's renewals reach, never on the fencer's own, which
 * may run fast or slow (SAFETY.md rule 2).
 */
export async function readNode(deps: FencerDeps, nodeName: string): Promise<ObservedNode | null> {
  return (await readNodeAndVolumes(deps, nodeName)).node;
}

/** {@link readNode}, with the volumes its kubelet last reported in use. */
export async function readNodeAndVolumes(
  deps: FencerDeps,
  nodeName: string,
): Promise<{ node: ObservedNode | null; volumesInUse: readonly string[] }> {
  const [node, { lease, servedAt }, csiNode] = await Promise.all([
    deps.cluster.getNode(nodeName),
    deps.cluster.getNodeLease(nodeName),
    deps.cluster.getCSINode(nodeName),
  ]);
  return {
    node: node ? toObservedNode(node, lease, csiNode, servedAt, deps.controlPlaneLabels) : null,
    volumesInUse: node?.volumesInUse ?? [],
  };
}
