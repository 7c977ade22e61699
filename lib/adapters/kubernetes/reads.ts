/**
 * The reads sweeps and diagnose need beyond the fencing loop's: pods, claims, storage classes,
 * CSINodes and Events. Lists go through {@link RawLister} (paginated, mapped page by page); single
 * objects through the generated client, with 404 as `null`.
 */
import type { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
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

const namespaced = (namespace: string | undefined, resource: string): string =>
  namespace ? `/api/v1/namespaces/${encodeURIComponent(namespace)}/${resource}` : `/api/v1/${resource}`;

export class ClusterReads {
  readonly #core: CoreV1Api;
  readonly #storage: StorageV1Api;
  readonly #lister: RawLister;

  constructor(core: CoreV1Api, storage: StorageV1Api, lister: RawLister) {
    this.#core = core;
    this.#storage = storage;
    this.#lister = lister;
  }

  getVolumeAttachment(name: string): Promise<VolumeAttachmentView | null> {
    return readOrNull('readVolumeAttachment', `volumeattachment/${name}`, async () =>
      toVolumeAttachmentView(await this.#storage.readVolumeAttachment({ name })),
    );
  }

  getPersistentVolume(name: string): Promise<PersistentVolumeView | null> {
    return readOrNull('readPersistentVolume', `persistentvolume/${name}`, async () =>
      toPersistentVolumeView(await this.#core.readPersistentVolume({ name })),
    );
  }

  getPod(namespace: string, name: string): Promise<PodView | null> {
    return readOrNull('readNamespacedPod', `pod/${namespace}/${name}`, async () =>
      toPodView(await this.#core.readNamespacedPod({ namespace, name })),
    );
  }

  listPods(filter: { readonly namespace?: string; readonly phase?: string } = {}): Promise<PodView[]> {
    const query: Record<string, string> = filter.phase
      ? { fieldSelector: `status.phase=${filter.phase}` }
      : {};
    return this.#lister.list('listPod', namespaced(filter.namespace, 'pods'), query, toPodView);
  }

  getPersistentVolumeClaim(namespace: string, name: string): Promise<PersistentVolumeClaimView | null> {
    return readOrNull(
      'readNamespacedPersistentVolumeClaim',
      `persistentvolumeclaim/${namespace}/${name}`,
      async () =>
        toPersistentVolumeClaimView(
          await this.#core.readNamespacedPersistentVolumeClaim({ namespace, name }),
        ),
    );
  }

  listPersistentVolumeClaims(namespace?: string): Promise<PersistentVolumeClaimView[]> {
    const path = namespaced(namespace, 'persistentvolumeclaims');
    return this.#lister.list('listPersistentVolumeClaim', path, {}, toPersistentVolumeClaimView);
  }

  listStorageClasses(): Promise<StorageClassView[]> {
    const path = '/apis/storage.k8s.io/v1/storageclasses';
    return this.#lister.list('listStorageClass', path, {}, toStorageClassView);
  }

  listCSINodes(): Promise<CSINodeView[]> {
    return this.#lister.list('listCSINode', '/apis/storage.k8s.io/v1/csinodes', {}, toCsiNodeView);
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
      namespaced(namespace, 'events'),
      { fieldSelector },
      toObjectEventView,
    );
    return events.sort(byLastSeen).slice(-(options.limit ?? DEFAULT_EVENT_LIMIT));
  }
}

async function readOrNull<T>(operation: string, object: string, read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isNotFound(error)) return null;
    throw toKubernetesApiError(operation, object, error);
  }
}
