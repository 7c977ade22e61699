/** Following a volume: claim → PV → its VolumeAttachments → their nodes → the machines, and the disk. */
import type { AttachmentFact, TreeNode, VolumeFact } from '../../domain/diagnose/model.js';
import { readyAndSchedulable } from '../../domain/sweep/sweep-index.js';
import type {
  PersistentVolumeClaimView,
  PersistentVolumeView,
  VolumeAttachmentView,
} from '../../ports/cluster.js';
import type { ComputeFencer } from '../../ports/compute-fencer.js';
import { type Chain, nodeFact } from './chain.js';
import {
  attachmentTree,
  claimTree,
  diskTree,
  instanceTree,
  missingTree,
  nodeTree,
  podFact,
  pvTree,
} from './tree.js';

/** What following one VolumeAttachment found. */
interface Followed {
  readonly fact: AttachmentFact;
  readonly tree: TreeNode;
  readonly fencer: ComputeFencer | null;
}

/** VolumeAttachment → node (with its events) → instance. A gone node is named by the CSI node id. */
export async function followAttachment(chain: Chain, va: VolumeAttachmentView): Promise<Followed> {
  const view = await chain.node(va.nodeName);
  const hint = view?.providerId?.trim() || va.csiNodeId;
  const [instance, events] = await Promise.all([
    hint
      ? chain.instance(hint)
      : Promise.resolve({ fact: null, problem: 'no providerID or CSI node id', fencer: null }),
    view ? chain.events({ kind: 'Node', name: va.nodeName }) : Promise.resolve([]),
  ]);
  const fact: AttachmentFact = {
    name: va.name,
    nodeName: va.nodeName,
    attached: va.attached,
    deleting: va.deletionTimestamp !== undefined,
    ...(va.attachError ? { attachError: va.attachError.message } : {}),
    ...(va.detachError ? { detachError: va.detachError.message } : {}),
    node: nodeFact(va.nodeName, view),
    instance: instance.fact,
    ...(instance.problem ? { instanceProblem: instance.problem } : {}),
  };
  const tree = attachmentTree(va, [
    nodeTree(va.nodeName, view, events, [instanceTree(instance.fact, instance.problem)]),
  ]);
  return { fact, tree, fencer: instance.fencer };
}

async function zoneHasReadyNode(chain: Chain, pv: PersistentVolumeView): Promise<boolean | null> {
  if (pv.zones.length === 0 || pv.nodeBound) return null;
  const nodes = await chain.allNodes();
  return nodes.some(
    (n) => pv.zones.includes(n.labels['topology.kubernetes.io/zone'] ?? '') && readyAndSchedulable(n),
  );
}

async function localNodeReady(chain: Chain, pv: PersistentVolumeView): Promise<boolean | null> {
  if (!pv.nodeBound || !pv.nodeNames?.length) return null;
  const nodes = await Promise.all(pv.nodeNames.map((n) => chain.node(n)));
  return nodes.some((n) => n?.ready === 'True');
}

/** PV → attachments, disk, and the pods that mount its claim. */
export async function followPv(
  chain: Chain,
  pv: PersistentVolumeView,
  claim: PersistentVolumeClaimView | null,
): Promise<{ fact: VolumeFact; tree: TreeNode }> {
  const vas = await chain.attachmentsOf(pv.name);
  const followed = await Promise.all(vas.map((va) => followAttachment(chain, va)));
  const fencer = followed.find((f) => f.fencer)?.fencer ?? null;
  const [disk, pods, zoneReady, localReady, events] = await Promise.all([
    chain.disk(pv, fencer),
    claim ? chain.podsUsing(claim.namespace, claim.name) : Promise.resolve([]),
    zoneHasReadyNode(chain, pv),
    localNodeReady(chain, pv),
    chain.events({ kind: 'PersistentVolume', name: pv.name }),
  ]);
  const fact: VolumeFact = {
    claim: claim
      ? { namespace: claim.namespace, name: claim.name, ...(claim.phase ? { phase: claim.phase } : {}) }
      : null,
    pv: {
      name: pv.name,
      ...(pv.driver ? { driver: pv.driver } : {}),
      ...(pv.volumeHandle ? { volumeHandle: pv.volumeHandle } : {}),
      accessModes: pv.accessModes,
      zones: pv.zones,
      nodeBound: pv.nodeBound,
      ...(pv.nodeNames ? { nodeNames: pv.nodeNames } : {}),
    },
    attachments: followed.map((f) => f.fact),
    disk,
    podsUsing: pods.map(podFact),
    zoneHasReadyNode: zoneReady,
    localNodeReady: localReady,
  };
  const children = [...followed.map((f) => f.tree), ...(disk ? [diskTree(disk)] : [])];
  return { fact, tree: pvTree(pv, events, children) };
}

/** Claim → PV (or the claim alone when it is not bound or its PV is gone). */
export async function followClaim(
  chain: Chain,
  namespace: string,
  name: string,
): Promise<{ fact: VolumeFact | null; tree: TreeNode }> {
  const claim = await chain.deps.cluster.getPersistentVolumeClaim(namespace, name);
  if (!claim) return { fact: null, tree: missingTree('PersistentVolumeClaim', name, namespace) };
  const events = await chain.events({ kind: 'PersistentVolumeClaim', name, namespace });
  const pv = claim.volumeName ? await chain.deps.cluster.getPersistentVolume(claim.volumeName) : null;
  if (!pv) {
    const child = claim.volumeName ? [missingTree('PersistentVolume', claim.volumeName)] : [];
    return { fact: null, tree: claimTree(claim, events, child) };
  }
  const followed = await followPv(chain, pv, claim);
  return { fact: followed.fact, tree: claimTree(claim, events, [followed.tree]) };
}
