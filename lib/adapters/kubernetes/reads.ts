/**
 * The reads sweeps and diagnose need beyond the fencing loop's: pods, claims, storage classes,
 * CSINodes and Events. Lists go through {@link RawLister} (paginated, mapped page by page); single
 * objects are one GET each, with 404 as `null`.
 */
import type {
  CSINodeView,
  EventTarget,
  ObjectEventView,
  PersistentVolumeClaimView,
  PersistentVolumeView,
  PodView,
  StorageClassView,
  VolumeAttachmentView,
} from '../../ports/cluster.js';
import type { ApiClient } from './api/api-client.js';
import { apiPaths } from './api/paths.js';
import { isNotFound, toKubernetesApiError } from './errors.js';
import { byLastSeen, toObjectEventView } from './event-views.js';
import type { RawLister } from './raw-list.js';
import {
  toCsiNodeView,
  toPersistentVolumeClaimView,
  toPersistentVolumeView,
  toStorageClassView,
  toVolumeAttachmentView,
} from './storage-views.js';
import { toPodView } from './views.js';

/** Events of cluster-scoped objects (nodes, PVs, VolumeAttachments) live here. */
const CLUSTER_EVENTS_NAMESPACE = 'default';
const DEFAULT_EVENT_LIMIT = 50;

export class ClusterReads {
  readonly #api: ApiClient;
  readonly #lister: RawLister;

  constructor(api: ApiClient, lister: RawLister) {
    this.#api = api;
    this.#lister = lister;
  }

  getVolumeAttachment(name: string): Promise<VolumeAttachmentView | null> {
    return getOrNull(
      this.#api,
      'readVolumeAttachment',
      apiPaths.volumeAttachment(name),
      toVolumeAttachmentView,
    );
  }

  getPersistentVolume(name: string): Promise<PersistentVolumeView | null> {
    return getOrNull(
      this.#api,
      'readPersistentVolume',
      apiPaths.persistentVolume(name),
      toPersistentVolumeView,
    );
  }

  getPod(namespace: string, name: string): Promise<PodView | null> {
    return getOrNull(this.#api, 'readNamespacedPod', apiPaths.pod(namespace, name), toPodView);
  }

  listPods(filter: { readonly namespace?: string; readonly phase?: string } = {}): Promise<PodView[]> {
    const query: Record<string, string> = filter.phase
      ? { fieldSelector: `status.phase=${filter.phase}` }
      : {};
    return this.#lister.list('listPod', apiPaths.inNamespace(filter.namespace, 'pods'), query, toPodView);
  }

  getPersistentVolumeClaim(namespace: string, name: string): Promise<PersistentVolumeClaimView | null> {
    return getOrNull(
      this.#api,
      'readNamespacedPersistentVolumeClaim',
      apiPaths.persistentVolumeClaim(namespace, name),
      toPersistentVolumeClaimView,
    );
  }

  listPersistentVolumeClaims(namespace?: string): Promise<PersistentVolumeClaimView[]> {
    const path = apiPaths.inNamespace(namespace, 'persistentvolumeclaims');
    return this.#lister.list('listPersistentVolumeClaim', path, {}, toPersistentVolumeClaimView);
  }

  listStorageClasses(): Promise<StorageClassView[]> {
    return this.#lister.list('listStorageClass', apiPaths.storageClasses, {}, toStorageClassView);
  }

  listCSINodes(): Promise<CSINodeView[]> {
    return this.#lister.list('listCSINode', apiPaths.csiNodes, {}, toCsiNodeView);
  }

  getCSINode(name: string): Promise<CSINodeView | null> {
    return getOrNull(this.#api, 'readCSINode', apiPaths.csiNode(name), toCsiNodeView);
  }

  /**
   * The Events about one object, selected server-side by kind and name, so memory does not grow
   * with the cluster's history; only the newest `limit` are kept.
   */
  async listEvents(
    target: EventTarget,
    options: { readonly limit?: number } = {},
  ): Promise<ObjectEventView[]> {
    const namespace = target.namespace ?? CLUSTER_EVENTS_NAMESPACE;
    const fieldSelector = `involvedObject.kind=${target.kind},involvedObject.name=${target.name}`;
    const events = await this.#lister.list(
      'listNamespacedEvent',
      apiPaths.inNamespace(namespace, 'events'),
      { fieldSelector },
      toObjectEventView,
    );
    return events.sort(byLastSeen).slice(-(options.limit ?? DEFAULT_EVENT_LIMIT));
  }
}

/**
 * GETs one object and maps it; 404 is `null`, other failures a KubernetesApiError naming the path.
 * The map takes the object as JSON (timestamps are strings; the views accept either form).
 */
export async function getOrNull<T>(
  api: ApiClient,
  operation: string,
  path: string,
  map: (object: never) => T,
): Promise<T | null> {
  let object: unknown;
  try {
    object = await api.call({ method: 'GET', path });
  } catch (error) {
    if (isNotFound(error)) return null;
    throw toKubernetesApiError(operation, path, error);
  }
  return map(object as never);
}
