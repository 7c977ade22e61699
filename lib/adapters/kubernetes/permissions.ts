/**
 * The Kubernetes permissions each use case needs through this adapter: what its REST calls do, in
 * `kubectl auth can-i` terms. The CLI checks them before a command acts (access-review.ts). A test
 * holds the lists to deploy/rbac.yaml (never more than it grants) and to the lab's audit log (every
 * request a command makes is covered), so a new call without its permission here fails a test.
 */
import type { Permission } from '../../domain/access-errors.js';

/** Where kubelets renew their Leases (read by liveness checks). */
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Where the fencer's Events on cluster-scoped objects go (events.ts). */
const EVENT_NAMESPACE = 'default';
/** The fencing claims Lease (KubeCluster's defaults). */
const CLAIMS = { namespace: 'kube-system', name: 'kube-fencer' } as const;

const grant = (
  group: string,
  resource: string,
  verbs: readonly string[],
  where: { readonly namespace?: string; readonly name?: string } = {},
): Permission[] => verbs.map((verb) => ({ verb, group, resource, ...where }));

const readNodes = grant('', 'nodes', ['get', 'list', 'watch']);
/** A node's CSINode: the CSI node ids that corroborate (or contradict) its instance. */
const csiNodes = grant('storage.k8s.io', 'csinodes', ['get']);
const nodeLeases = grant('coordination.k8s.io', 'leases', ['get'], { namespace: NODE_LEASE_NAMESPACE });
const podsOnNodes = grant('', 'pods', ['list', 'watch']);
const readAttachments = grant('storage.k8s.io', 'volumeattachments', ['list', 'watch']);
const readClaims = grant('coordination.k8s.io', 'leases', ['get'], CLAIMS);
const writeClaims = [
  ...grant('coordination.k8s.io', 'leases', ['patch'], CLAIMS),
  ...grant('coordination.k8s.io', 'leases', ['create'], { namespace: CLAIMS.namespace }),
];
const recordEvents = grant('', 'events', ['create'], { namespace: EVENT_NAMESPACE });
const taintNodes = grant('', 'nodes', ['patch']);

/** What shapes a fence run's needs. */
export interface FencePermissionOptions {
  /** Force-deletes the node's terminating pods after the taint (the default). */
  readonly accelerate: boolean;
  /** May delete VolumeAttachments itself (`--strategy legacy`, clusters before 1.26). */
  readonly deletesVolumeAttachments: boolean;
}

/** A fence run: read the node and what it holds, claim it, taint it, record Events, watch it drain. */
export function fencePermissions(options: FencePermissionOptions): Permission[] {
  return [
    ...readNodes,
    ...csiNodes,
    ...taintNodes,
    ...nodeLeases,
    ...podsOnNodes,
    ...(options.accelerate ? grant('', 'pods', ['delete']) : []),
    ...readAttachments,
    ...(options.deletesVolumeAttachments ? grant('storage.k8s.io', 'volumeattachments', ['delete']) : []),
    ...grant('', 'persistentvolumes', ['list']),
    ...readClaims,
    ...writeClaims,
    ...recordEvents,
  ];
}

/** An un-fence run: read the node, remove the fencer's own taint, record Events. */
export const UNFENCE_PERMISSIONS: readonly Permission[] = [
  ...readNodes,
  ...csiNodes,
  ...taintNodes,
  ...nodeLeases,
  ...podsOnNodes,
  ...readAttachments,
  ...readClaims,
  ...recordEvents,
];

/** `status`: nodes, their pods and VolumeAttachments, the claims. Reads only. */
export const STATUS_PERMISSIONS: readonly Permission[] = [
  ...grant('', 'nodes', ['get', 'list']),
  ...grant('', 'pods', ['list']),
  ...grant('storage.k8s.io', 'volumeattachments', ['list']),
  ...readClaims,
];

/** `status NODE --timeline-out`: also the node's Events, for the picture. */
export const STATUS_TIMELINE_PERMISSIONS: readonly Permission[] = [
  ...STATUS_PERMISSIONS,
  ...grant('', 'events', ['list'], { namespace: EVENT_NAMESPACE }),
];

/** `limits`: the claims Lease (its in-flight limit and the fencings in flight); `set` writes the limit. */
export function limitsPermissions(set: boolean): Permission[] {
  return [...readClaims, ...(set ? writeClaims : [])];
}

/** `sweep`: everything that can hold a volume, report-only. */
export const SWEEP_PERMISSIONS: readonly Permission[] = [
  ...grant('', 'nodes', ['list']),
  ...grant('', 'pods', ['list']),
  ...grant('', 'persistentvolumes', ['list']),
  ...grant('', 'persistentvolumeclaims', ['list']),
  ...grant('storage.k8s.io', 'volumeattachments', ['list']),
  ...grant('storage.k8s.io', 'storageclasses', ['list']),
  ...grant('storage.k8s.io', 'csinodes', ['list']),
];

/** `sweep --remediate`: also delete dead VolumeAttachments and fence long-NotReady nodes. */
export const SWEEP_REMEDIATE_PERMISSIONS: readonly Permission[] = [
  ...SWEEP_PERMISSIONS,
  ...grant('storage.k8s.io', 'volumeattachments', ['delete']),
  ...fencePermissions({ accelerate: true, deletesVolumeAttachments: false }),
];

/** Where `fencer controller` keeps its leader Lease unless told otherwise (deploy/rbac.yaml grants it). */
export const CONTROLLER_LEASE = { namespace: 'kube-system', name: 'kube-fencer-controller' } as const;

/** The NHC remediations (deploy/crds/rbac.yaml, kube-fencer-remediator): followed, their finalizer and status written. */
const REMEDIATION_GROUP = 'remediation.kube-fencer.io';
const remediations = [
  // The finalizer is a patch of the object; the conditions, a patch of its status; Events, in its namespace.
  ...grant(REMEDIATION_GROUP, 'kubefencerremediations', ['get', 'list', 'watch', 'patch']),
  ...grant(REMEDIATION_GROUP, 'kubefencerremediations/status', ['patch']),
  ...grant('', 'events', ['create']),
];

/**
 * `fencer controller`: every fence (with the force-deletion after the taint), un-fence and report-only
 * sweep of its leader, the Node watch of every replica, and the leader Lease, by name except `create`;
 * with `nhc`, the medik8s Node Healthcheck remediations it serves; with `deletesVolumeAttachments` (the
 * legacy strategy or a remediating sweep), the deletion of VolumeAttachments.
 */
export function controllerPermissions(
  lease: { readonly namespace: string; readonly name: string },
  options: { readonly nhc: boolean; readonly deletesVolumeAttachments?: boolean } = { nhc: false },
): Permission[] {
  return [
    // Deleting VolumeAttachments: the legacy strategy, and a remediating sweep (SAFETY.md rule 5).
    ...fencePermissions({
      accelerate: true,
      deletesVolumeAttachments: options.deletesVolumeAttachments === true,
    }),
    ...UNFENCE_PERMISSIONS,
    ...SWEEP_PERMISSIONS,
    ...grant('coordination.k8s.io', 'leases', ['get', 'patch'], lease),
    ...grant('coordination.k8s.io', 'leases', ['create'], { namespace: lease.namespace }),
    ...(options.nhc ? remediations : []),
  ];
}

/** `diagnose`: the chain from a pod to its node, with each object's Events. Reads only. */
export const DIAGNOSE_PERMISSIONS: readonly Permission[] = [
  ...grant('', 'pods', ['get', 'list']),
  ...grant('', 'persistentvolumeclaims', ['get']),
  ...grant('', 'persistentvolumes', ['get']),
  ...grant('', 'nodes', ['get']),
  ...grant('', 'events', ['list']),
  ...grant('storage.k8s.io', 'volumeattachments', ['list']),
];
