/**
 * Pure mapping from Kubernetes objects to the Cluster port's views (nodes, leases, pods, version).
 * The objects are typed with client-node's models (types only, nothing of it is bundled). From the
 * API they arrive as JSON, timestamps as strings; client-node models, as the lab and tests build
 * them, carry `Date`s. Every timestamp goes through {@link isoTime}, which takes both.
 */
import type { V1Lease, V1Node, V1Pod, V1Taint, V1Toleration, VersionInfo } from '@kubernetes/client-node';
import { MIRROR_POD_ANNOTATION } from '../../domain/control-plane.js';
import type { LeaseView, NodeView, PodView, ServerVersion, Taint } from '../../ports/cluster.js';

/** A Kubernetes timestamp as ISO 8601, from a JSON string or a `Date`. */
export const isoTime = (value: Date | string | undefined | null): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
};

/** A node taint as the port sees it (the API server admits only the port's three effects). */
export const toTaint = (taint: V1Taint): Taint => ({
  key: taint.key,
  ...(taint.value !== undefined && taint.value !== '' ? { value: taint.value } : {}),
  effect: taint.effect as Taint['effect'],
  ...(taint.timeAdded ? { timeAdded: isoTime(taint.timeAdded) } : {}),
});

const READY_STATUSES: ReadonlySet<string> = new Set(['True', 'False', 'Unknown']);

/** The Node as plain data: Ready condition, heartbeat, providerID, taints, labels, annotations. */
export const toNodeView = (node: V1Node): NodeView => {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    name: node.metadata?.name ?? '',
    uid: node.metadata?.uid ?? '',
    resourceVersion: node.metadata?.resourceVersion ?? '',
    createdAt: isoTime(node.metadata?.creationTimestamp) ?? '',
    // A status outside the three the API defines is not proof of anything: treat it as Unknown.
    ready: ready
      ? ((READY_STATUSES.has(ready.status) ? ready.status : 'Unknown') as NodeView['ready'])
      : 'Missing',
    readySince: isoTime(ready?.lastTransitionTime),
    lastHeartbeat: isoTime(ready?.lastHeartbeatTime),
    ...(ready?.reason ? { readyReason: ready.reason } : {}),
    addresses: (node.status?.addresses ?? []).map((a) => ({ type: a.type, address: a.address })),
    ...(node.status?.nodeInfo?.bootID ? { bootId: node.status.nodeInfo.bootID } : {}),
    ...(node.status?.volumesInUse?.length ? { volumesInUse: [...node.status.volumesInUse] } : {}),
    ...(node.status?.volumesAttached?.length
      ? { volumesAttached: node.status.volumesAttached.map((v) => v.name) }
      : {}),
    providerId: node.spec?.providerID || undefined,
    unschedulable: node.spec?.unschedulable === true,
    labels: { ...node.metadata?.labels },
    annotations: { ...node.metadata?.annotations },
    taints: (node.spec?.taints ?? []).map(toTaint),
  };
};

/** A node's heartbeat Lease (`kube-node-lease/<node>`). */
export const toLeaseView = (lease: V1Lease): LeaseView => ({
  holder: lease.spec?.holderIdentity || undefined,
  renewTime: isoTime(lease.spec?.renewTime as Date | string | undefined),
  writtenAt: newestWrite([
    lease.metadata?.creationTimestamp,
    ...(lease.metadata?.managedFields ?? []).map((entry) => entry.time),
  ]),
  durationSeconds: lease.spec?.leaseDurationSeconds,
});

/**
 * The newest of the times the API server stamped on an object's writes: its creation and each field
 * manager's last write (a writer may strip managedFields; it cannot move creationTimestamp).
 */
function newestWrite(stamps: readonly (Date | string | undefined)[]): string | undefined {
  const times = stamps
    .map((stamp) => isoTime(stamp))
    .filter((time): time is string => time !== undefined && Number.isFinite(Date.parse(time)));
  return times.sort((a, b) => Date.parse(b) - Date.parse(a))[0];
}

/**
 * Whether a toleration lets a pod stay through every NoExecute taint, forever: no key with
 * `Exists`, an empty or NoExecute effect, and no `tolerationSeconds` (which would evict it later).
 */
export const toleratesEveryNoExecute = (toleration: V1Toleration): boolean =>
  toleration.operator === 'Exists' &&
  !toleration.key &&
  (!toleration.effect || toleration.effect === 'NoExecute') &&
  (toleration.tolerationSeconds === undefined || toleration.tolerationSeconds === null);

const OUT_OF_SERVICE_KEY = 'node.kubernetes.io/out-of-service';

/**
 * Whether a toleration keeps a pod through the out-of-service taint for good: it matches the taint's
 * key (or every key), a NoExecute or empty effect, and has no `tolerationSeconds`. The taint's value
 * is not checked: an `Equal` toleration of another value does not match, so it is counted only when
 * it names `nodeshutdown`.
 */
export const toleratesOutOfService = (toleration: V1Toleration): boolean => {
  const effectMatches = !toleration.effect || toleration.effect === 'NoExecute';
  const forever = toleration.tolerationSeconds === undefined || toleration.tolerationSeconds === null;
  if (!effectMatches || !forever) return false;
  if (toleration.operator === 'Exists') return !toleration.key || toleration.key === OUT_OF_SERVICE_KEY;
  return toleration.key === OUT_OF_SERVICE_KEY && (toleration.value ?? '') === 'nodeshutdown';
};

/**
 * The PVCs a pod mounts: named claims, and the claims Kubernetes creates for generic ephemeral
 * volumes (`<pod>-<volume>`), which are just as bound to one node's disk.
 */
export const claimNamesOf = (pod: V1Pod): string[] => {
  const podName = pod.metadata?.name ?? '';
  const names: string[] = [];
  for (const volume of pod.spec?.volumes ?? []) {
    if (volume.persistentVolumeClaim?.claimName) names.push(volume.persistentVolumeClaim.claimName);
    else if (volume.ephemeral) names.push(`${podName}-${volume.name}`);
  }
  return names;
};

/** A pod as plain data. `ownerKind` is the controller's kind (e.g. StatefulSet's pods say `StatefulSet`). */
export const toPodView = (pod: V1Pod): PodView => {
  const owners = pod.metadata?.ownerReferences ?? [];
  const owner = owners.find((o) => o.controller === true) ?? owners[0];
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    nodeName: pod.spec?.nodeName || undefined,
    phase: pod.status?.phase ?? 'Unknown',
    deletionTimestamp: isoTime(pod.metadata?.deletionTimestamp),
    claimNames: claimNamesOf(pod),
    toleratesEverything: (pod.spec?.tolerations ?? []).some(toleratesEveryNoExecute),
    toleratesOutOfService: (pod.spec?.tolerations ?? []).some(toleratesOutOfService),
    ownerKind: owner?.kind,
    ...(MIRROR_POD_ANNOTATION in (pod.metadata?.annotations ?? {}) ? { mirror: true } : {}),
    ...(pod.metadata?.labels?.component ? { component: pod.metadata.labels.component } : {}),
    ...podStatusFields(pod),
  };
};

/** Why a pod is not running yet: a waiting container's reason, the scheduler's message. */
const podStatusFields = (pod: V1Pod): Pick<PodView, 'waitingReason' | 'unschedulableMessage'> => {
  const waiting = pod.status?.containerStatuses?.find((c) => c.state?.waiting)?.state?.waiting?.reason;
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  return {
    ...(waiting ? { waitingReason: waiting } : {}),
    ...(scheduled?.message ? { unschedulableMessage: scheduled.message } : {}),
  };
};

/**
 * Major and minor from `/version`. Providers decorate them ("1", "36+" on EKS and GKE), so only
 * the leading digits count; gitVersion (`v1.36.2-eks-…`) is the fallback when they are missing.
 * Throws when neither says which version it is.
 */
export const toServerVersion = (info: VersionInfo): ServerVersion => {
  const fromGit = /^v?(\d+)\.(\d+)/.exec(info.gitVersion ?? '');
  const major = /^\d+/.exec(info.major ?? '')?.[0] ?? fromGit?.[1];
  const minor = /^\d+/.exec(info.minor ?? '')?.[0] ?? fromGit?.[2];
  if (major === undefined || minor === undefined) {
    // A guessed version could enable the out-of-service path on a cluster that ignores the taint.
    throw new Error(
      `unparseable server version: major=${JSON.stringify(info.major)} minor=${JSON.stringify(info.minor)} gitVersion=${JSON.stringify(info.gitVersion)}`,
    );
  }
  return {
    major: Number.parseInt(major, 10),
    minor: Number.parseInt(minor, 10),
    gitVersion: info.gitVersion ?? '',
  };
};
