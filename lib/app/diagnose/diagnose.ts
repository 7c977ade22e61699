/**
 * The diagnose use case: follow pod → PVC → PV → VolumeAttachment → node → instance (or start from a
 * claim or a node), show each state and its matching events, then name the blocker and the next safe
 * action with the pure blocker table, and explain what the volume kind changes (RWX, Local PV).
 */
import { findBlocker } from '../../domain/diagnose/blocker.js';
import type { Diagnosis, EventLine, TreeNode, VolumeFact } from '../../domain/diagnose/model.js';
import { volumeNotes } from '../../domain/diagnose/notes.js';
import { Chain, nodeFact } from './chain.js';
import type { DiagnoseDeps } from './deps.js';
import { followAttachment, followClaim, followPv } from './follow.js';
import { instanceTree, nodeTree, podFact, podTree } from './tree.js';

export interface DiagnoseTarget {
  readonly kind: 'pod' | 'pvc' | 'node';
  readonly name: string;
  /** For a pod or a PVC. @default 'default' */
  readonly namespace?: string;
}

const signalsOf = (...lists: (readonly EventLine[])[]) =>
  lists.flat().flatMap((e) => (e.signal ? [e.signal] : []));

/** Every event line in a tree, for the signals. */
const treeEvents = (tree: TreeNode): EventLine[] => [...tree.events, ...tree.children.flatMap(treeEvents)];

function conclude(
  deps: DiagnoseDeps,
  target: DiagnoseTarget,
  tree: TreeNode,
  facts: Parameters<typeof findBlocker>[0],
): Diagnosis {
  const { blocker, nextAction } = findBlocker(facts);
  const notes = [...new Set(facts.volumes.flatMap((v) => (v.pv ? volumeNotes(v.pv) : [])))];
  return { target, observedAt: deps.clock.now().toISOString(), tree, blocker, nextAction, notes };
}

async function diagnosePod(
  chain: Chain,
  target: DiagnoseTarget,
  namespace: string,
): Promise<Diagnosis | null> {
  const pod = await chain.deps.cluster.getPod(namespace, target.name);
  if (!pod) return null;
  const [events, claims, podNode] = await Promise.all([
    chain.events({ kind: 'Pod', name: pod.name, namespace }),
    Promise.all(pod.claimNames.map((c) => followClaim(chain, namespace, c))),
    pod.nodeName ? chain.node(pod.nodeName) : Promise.resolve(null),
  ]);
  const tree = podTree(
    pod,
    events,
    claims.map((c) => c.tree),
  );
  const volumes = claims.flatMap((c) => (c.fact ? [c.fact] : []));
  return conclude(chain.deps, target, tree, {
    pod: podFact(pod),
    podNode: pod.nodeName ? nodeFact(pod.nodeName, podNode) : null,
    volumes,
    signals: signalsOf(treeEvents(tree)),
  });
}

async function diagnoseClaim(
  chain: Chain,
  target: DiagnoseTarget,
  namespace: string,
): Promise<Diagnosis | null> {
  const followed = await followClaim(chain, namespace, target.name);
  if (followed.tree.state === 'NOT FOUND') return null;
  return conclude(chain.deps, target, followed.tree, {
    pod: null,
    podNode: null,
    volumes: followed.fact ? [followed.fact] : [],
    signals: signalsOf(treeEvents(followed.tree)),
  });
}

async function diagnoseNode(chain: Chain, target: DiagnoseTarget): Promise<Diagnosis | null> {
  const view = await chain.node(target.name);
  if (!view) return null;
  const hint = view.providerId?.trim();
  const [events, instance, vas] = await Promise.all([
    chain.events({ kind: 'Node', name: view.name }),
    hint ? chain.instance(hint) : Promise.resolve({ fact: null, problem: 'the node has no providerID' }),
    chain.deps.cluster.listVolumeAttachments({ nodeName: view.name }),
  ]);
  const volumes: VolumeFact[] = [];
  const children: TreeNode[] = [instanceTree(instance.fact, instance.problem)];
  for (const va of vas) {
    const pv = va.persistentVolumeName
      ? await chain.deps.cluster.getPersistentVolume(va.persistentVolumeName)
      : null;
    const claim = pv?.claim
      ? await chain.deps.cluster.getPersistentVolumeClaim(pv.claim.namespace, pv.claim.name)
      : null;
    if (pv) {
      const followed = await followPv(chain, pv, claim);
      volumes.push(followed.fact);
      children.push(followed.tree);
    } else children.push((await followAttachment(chain, va)).tree);
  }
  const tree = nodeTree(view.name, view, events, children);
  // From the node's side, every attachment on it is a holder: the "pod" is whoever waits elsewhere.
  return conclude(chain.deps, target, tree, {
    pod: null,
    podNode: null,
    volumes,
    signals: signalsOf(events),
  });
}

/** Diagnoses a pod, a claim or a node; null when it does not exist. */
export function diagnose(deps: DiagnoseDeps, target: DiagnoseTarget): Promise<Diagnosis | null> {
  const chain = new Chain(deps);
  const namespace = target.namespace ?? 'default';
  switch (target.kind) {
    case 'pod':
      return diagnosePod(chain, target, namespace);
    case 'pvc':
      return diagnoseClaim(chain, target, namespace);
    case 'node':
      return diagnoseNode(chain, target);
  }
}
