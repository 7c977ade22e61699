/** REST paths of the objects the adapter reads and writes. */
const seg = encodeURIComponent;

const namespaced = (namespace: string, resource: string, name?: string): string =>
  `/api/v1/namespaces/${seg(namespace)}/${resource}${name === undefined ? '' : `/${seg(name)}`}`;

export const apiPaths = {
  version: '/version',
  nodes: '/api/v1/nodes',
  node: (name: string): string => `/api/v1/nodes/${seg(name)}`,
  pods: '/api/v1/pods',
  pod: (namespace: string, name: string): string => namespaced(namespace, 'pods', name),
  persistentVolumes: '/api/v1/persistentvolumes',
  persistentVolume: (name: string): string => `/api/v1/persistentvolumes/${seg(name)}`,
  persistentVolumeClaim: (namespace: string, name: string): string =>
    namespaced(namespace, 'persistentvolumeclaims', name),
  /** Across namespaces when `namespace` is undefined. */
  inNamespace: (namespace: string | undefined, resource: string): string =>
    namespace ? namespaced(namespace, resource) : `/api/v1/${resource}`,
  leases: (namespace: string): string => `/apis/coordination.k8s.io/v1/namespaces/${seg(namespace)}/leases`,
  lease: (namespace: string, name: string): string =>
    `/apis/coordination.k8s.io/v1/namespaces/${seg(namespace)}/leases/${seg(name)}`,
  volumeAttachments: '/apis/storage.k8s.io/v1/volumeattachments',
  volumeAttachment: (name: string): string => `/apis/storage.k8s.io/v1/volumeattachments/${seg(name)}`,
  storageClasses: '/apis/storage.k8s.io/v1/storageclasses',
  csiNodes: '/apis/storage.k8s.io/v1/csinodes',
  csiNode: (name: string): string => `/apis/storage.k8s.io/v1/csinodes/${seg(name)}`,
} as const;

/** The content type of a JSON merge patch (RFC 7386). */
export const MERGE_PATCH = 'application/merge-patch+json';
