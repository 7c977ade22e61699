/**
 * {@link NetworkFences} on the Kubernetes API: csi-addons' cluster-scoped `NetworkFence` objects, read
 * and written as JSON. Every write is conditional (resourceVersion on update, UID on delete), so a
 * NetworkFence that someone else replaced in between is never overwritten or deleted.
 */
import type {
  FenceState,
  NetworkFenceObject,
  NetworkFenceSpec,
  NetworkFences,
} from '../../ports/network-fences.js';
import { ApiClient } from './api/api-client.js';
import type { ApiEndpoint } from './api/endpoint.js';
import { isNotFound, toKubernetesApiError } from './errors.js';

const PATH = '/apis/csiaddons.openshift.io/v1alpha1/networkfences';
const API_VERSION = 'csiaddons.openshift.io/v1alpha1';

interface RawNetworkFence {
  metadata?: {
    name?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec?: { networkFenceClassName?: string; fenceState?: string; cidrs?: string[] };
  status?: { result?: string; message?: string };
}

const view = (raw: RawNetworkFence): NetworkFenceObject => ({
  name: raw.metadata?.name ?? '',
  uid: raw.metadata?.uid ?? '',
  resourceVersion: raw.metadata?.resourceVersion ?? '',
  labels: raw.metadata?.labels ?? {},
  annotations: raw.metadata?.annotations ?? {},
  networkFenceClassName: raw.spec?.networkFenceClassName,
  // csi-addons defaults an absent state to Fenced.
  fenceState: (raw.spec?.fenceState === 'Unfenced' ? 'Unfenced' : 'Fenced') as FenceState,
  cidrs: raw.spec?.cidrs ?? [],
  result: raw.status?.result,
  message: raw.status?.message,
  deleting: raw.metadata?.deletionTimestamp !== undefined,
});

const specBody = (spec: NetworkFenceSpec) => ({
  networkFenceClassName: spec.networkFenceClassName,
  fenceState: spec.fenceState,
  cidrs: [...spec.cidrs],
});

export class KubeNetworkFences implements NetworkFences {
  readonly #api: ApiClient;

  constructor(endpoint: ApiEndpoint) {
    this.#api = new ApiClient(endpoint);
  }

  async get(name: string): Promise<NetworkFenceObject | null> {
    try {
      return view(await this.#api.call<RawNetworkFence>({ method: 'GET', path: `${PATH}/${name}` }));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw toKubernetesApiError('getNetworkFence', `networkfence/${name}`, error);
    }
  }

  async create(
    name: string,
    spec: NetworkFenceSpec,
    meta: { readonly labels: Record<string, string>; readonly annotations: Record<string, string> },
  ): Promise<NetworkFenceObject> {
    try {
      const body = {
        apiVersion: API_VERSION,
        kind: 'NetworkFence',
        metadata: { name, labels: meta.labels, annotations: meta.annotations },
        spec: specBody(spec),
      };
      return view(await this.#api.call<RawNetworkFence>({ method: 'POST', path: PATH, body }));
    } catch (error) {
      throw toKubernetesApiError('createNetworkFence', `networkfence/${name}`, error);
    }
  }

  async update(
    current: NetworkFenceObject,
    spec: NetworkFenceSpec,
    annotations: Record<string, string>,
  ): Promise<NetworkFenceObject> {
    try {
      const body = {
        metadata: { resourceVersion: current.resourceVersion, annotations },
        spec: specBody(spec),
      };
      return view(
        await this.#api.call<RawNetworkFence>({
          method: 'PATCH',
          path: `${PATH}/${current.name}`,
          body,
          contentType: 'application/merge-patch+json',
        }),
      );
    } catch (error) {
      throw toKubernetesApiError('updateNetworkFence', `networkfence/${current.name}`, error);
    }
  }

  async delete(current: NetworkFenceObject): Promise<void> {
    try {
      await this.#api.call({
        method: 'DELETE',
        path: `${PATH}/${current.name}`,
        body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: current.uid } },
      });
    } catch (error) {
      if (isNotFound(error)) return;
      throw toKubernetesApiError('deleteNetworkFence', `networkfence/${current.name}`, error);
    }
  }
}
