/**
 * The marks the fencer reads and writes on Kubernetes objects. Adapters use these names so that the
 * domain and the cluster agree on what "owned by the fencer" means (safety.md rule 6).
 */

/** The taint that makes Kubernetes (>= 1.26) force-delete the node's pods and force-detach its volumes. */
export const OUT_OF_SERVICE_TAINT = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
} as const;
export type OutOfServiceTaint = typeof OUT_OF_SERVICE_TAINT;

/** The label that marks a control-plane node. */
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

/** Annotations the fencer owns on a Node. */
export const FENCER_ANNOTATION = {
  /** JSON {@link FenceRecord}: present only while the out-of-service taint is the fencer's. */
  fenceRecord: 'kube-fencer.io/fence-record',
  /** Any value opts the node out of fencing. */
  optOut: 'kube-fencer.io/opt-out',
} as const;

/** What the fencer writes beside its taint, in the same update: the proof that the taint is its own. */
export interface FenceRecord {
  readonly runId: string;
  /** When the taint was added, ISO 8601. Un-fence needs an instance start later than this. */
  readonly fencedAt: string;
  readonly instanceId: string;
  /** The provider state that proved the instance off, e.g. `stopped`. */
  readonly proof: string;
}

/** The minor version from which the out-of-service taint releases volumes (beta, on by default). */
export const OUT_OF_SERVICE_MIN_MINOR = 26;
