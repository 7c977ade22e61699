/**
 * csi-addons `NetworkFence` objects (`csiaddons.openshift.io/v1alpha1`, cluster-scoped): how a cluster
 * whose Ceph is run by Rook or OpenShift Data Foundation asks its own ceph-csi to blocklist CIDRs. The
 * Ceph adapter asks through this port; the Kubernetes adapter serves it.
 */

/** `spec.fenceState`. */
export type FenceState = 'Fenced' | 'Unfenced';

/** One NetworkFence, as far as the fencer reads it. */
export interface NetworkFenceObject {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly networkFenceClassName: string | undefined;
  readonly fenceState: FenceState;
  readonly cidrs: readonly string[];
  /** `status.result`: `Succeeded` or `Failed`, once csi-addons has acted; it names no generation. */
  readonly result: string | undefined;
  /** `status.message`: the only thing that says which operation `result` belongs to. */
  readonly message: string | undefined;
  readonly deleting: boolean;
}

/** What the fencer writes. */
export interface NetworkFenceSpec {
  readonly networkFenceClassName: string;
  readonly fenceState: FenceState;
  readonly cidrs: readonly string[];
}

export interface NetworkFenceCallOptions {
  readonly signal?: AbortSignal;
}

export interface NetworkFences {
  /** The object, or null when there is none of that name. */
  get(name: string, options?: NetworkFenceCallOptions): Promise<NetworkFenceObject | null>;
  /** Creates it; fails (`AlreadyExists`) when the name is taken. */
  create(
    name: string,
    spec: NetworkFenceSpec,
    meta: { readonly labels: Record<string, string>; readonly annotations: Record<string, string> },
    options?: NetworkFenceCallOptions,
  ): Promise<NetworkFenceObject>;
  /** Replaces its spec, only if it is still at `resourceVersion` (a conflict fails). */
  update(
    current: NetworkFenceObject,
    spec: NetworkFenceSpec,
    annotations: Record<string, string>,
    options?: NetworkFenceCallOptions,
  ): Promise<NetworkFenceObject>;
  /** Deletes it, only if it is still the object of `uid`. */
  delete(current: NetworkFenceObject, options?: NetworkFenceCallOptions): Promise<void>;
}
