/**
 * Which NetworkFence is kube-fencer's: the one of the node's name that carries kube-fencer's label and
 * names the node. Any other is never changed or lifted; finding one refuses the run.
 */
import { createHash } from 'node:crypto';
import type { NetworkFenceObject } from '../../ports/network-fences.js';
import { StorageFault } from '../../ports/storage-fencer.js';
import { CephApiError, CephInputError } from './errors.js';

/** Marks a NetworkFence as kube-fencer's; one without it is never touched. */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'kube-fencer' } as const;
/** The node a NetworkFence fences (its name may be shortened). */
export const NODE_ANNOTATION = 'kube-fencer.io/node';

/** The NetworkFence of a node: `kube-fencer-<node>`, or a hash of the name where that is too long. */
export function networkFenceName(node: string): string {
  const name = `kube-fencer-${node}`;
  return name.length <= 253
    ? name
    : `kube-fencer-${createHash('sha256').update(node).digest('hex').slice(0, 32)}`;
}

/** Whether `fence` is kube-fencer's own NetworkFence for `node`. */
export const isOurs = (fence: NetworkFenceObject, node: string): boolean =>
  fence.labels['app.kubernetes.io/managed-by'] === MANAGED_BY['app.kubernetes.io/managed-by'] &&
  fence.annotations[NODE_ANNOTATION] === node;

const notOursText = (fence: NetworkFenceObject, node: string): string =>
  `NetworkFence ${fence.name} exists and is not kube-fencer's for node ${node} (label app.kubernetes.io/managed-by=kube-fencer, annotation ${NODE_ANNOTATION}): the fencer neither changes nor lifts it`;

/** Not the fencer's to change: a state to refuse at once (nothing is written), never to retry. */
export const notOurs = (fence: NetworkFenceObject, node: string): CephInputError =>
  new CephInputError(notOursText(fence, node));

/** The same, seen while observing: a storage fault the decision refuses with its own reason. */
export const foreignFence = (fence: NetworkFenceObject, node: string): CephApiError =>
  new CephApiError(
    { fault: StorageFault.FenceNotOurs, operation: `get NetworkFence ${fence.name}`, retryable: false },
    notOursText(fence, node),
  );
