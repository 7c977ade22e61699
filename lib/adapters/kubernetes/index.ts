/** Kubernetes implementation of the Cluster port: JSON over the REST API, on node:https. */
export { CLAIMS_ANNOTATION } from './claims.js';
export { ConflictError, KubernetesApiError } from './errors.js';
export { KubeCluster, type KubeClusterProps } from './kube-cluster.js';
export type { KubeClusterLogger } from './logger.js';
export { KubeNetworkFences } from './network-fences.js';
export type { ConflictRetryPolicy } from './retry.js';
