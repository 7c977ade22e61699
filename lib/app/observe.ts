import { ProviderIdError } from '../domain/errors.js';
import type { InstanceRef } from '../domain/instance.js';
import {
  CONTROL_PLANE_LABEL,
  FENCER_ANNOTATION,
  type FenceRecord,
  OUT_OF_SERVICE_TAINT,
} from '../domain/node-marks.js';
import type {
  Fallible,
  Observation,
  ObservedCluster,
  ObservedInstance,
  ObservedNode,
  ObservedWorkload,
} from '../domain/observation.js';
import type { LeaseView, NodeView } from '../ports/cluster.js';
import type { ComputeFencer } from '../ports/compute-fencer.js';
import type { FencerDeps } from './deps.js';

/** What a step observed, plus the handles it needs to act on it. */
export interface Observed {
  readonly observation: Observation;
  readonly fencer: ComputeFencer | null;
  readonly ref: InstanceRef | null;
}

/** Reads the fence record the fencer wrote beside its taint; an unreadable record is no record. */
export function parseFenceRecord(annotations: Readonly<Record<string, string>>): FenceRecord | null {
  const raw = annotations[FENCER_ANNOTATION.fenceRecord];
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<FenceRecord>;
    if (typeof value.runId !== 'string' || typeof value.fencedAt !== 'string') return null;
    return {
      runId: value.runId,
      fencedAt: value.fencedAt,
      instanceId: String(value.instanceId ?? ''),
      proof: String(value.proof ?? ''),
    };
  } catch {
    return null;
  }
}

export function toObservedNode(node: NodeView, lease: LeaseView | null): ObservedNode {
  const fenceRecord = parseFenceRecord(node.annotations);
  const present = node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key);
  return {
    name: node.name,
    uid: node.uid,
    resourceVersion: node.resourceVersion,
    ready: node.ready === 'Missing' ? 'Unknown' : node.ready,
    lastHeartbeat: node.lastHeartbeat ?? null,
    leaseRenewTime: lease?.renewTime ?? null,
    providerId: node.providerId?.trim() ? node.providerId : null,
    controlPlane: CONTROL_PLANE_LABEL in node.labels,
    optedOut: FENCER_ANNOTATION.optOut in node.annotations,
    outOfServiceTaint: { present, ownedByFencer: present && fenceRecord !== null },
    fenceRecord,
  };
}

const fallible = async <T>(call: () => Promise<T>): Promise<Fallible<T>> => {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    const e = err as Error;
    return { ok: false, error: { name: e?.name ?? 'Error', message: e?.message ?? String(err) } };
  }
};

async function observeInstance(
  deps: FencerDeps,
  providerId: string | null,
  cluster: string,
): Promise<{ instance: ObservedInstance; fencer: ComputeFencer | null; ref: InstanceRef | null }> {
  if (providerId === null) {
    return {
      instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
      fencer: null,
      ref: null,
    };
  }
  const fencer = deps.compute.forProviderId(providerId);
  if (!fencer) {
    const detail = `no configured provider handles providerID ${JSON.stringify(providerId)}`;
    return { instance: { resolved: false, problem: 'unknown-provider', detail }, fencer: null, ref: null };
  }
  let ref: InstanceRef;
  try {
    ref = fencer.parseProviderId(providerId);
  } catch (err) {
    if (!(err instanceof ProviderIdError)) throw err;
    return { instance: { resolved: false, problem: err.problem, detail: err.message }, fencer, ref: null };
  }
  const [ownership, power, disks] = await Promise.all([
    fallible(() => fencer.verifyOwnership(ref, cluster)),
    fallible(() => fencer.observePower(ref)),
    fallible(() => fencer.attachedDisks(ref)),
  ]);
  return { instance: { resolved: true, ref, ownership, power, disks }, fencer, ref };
}

async function observeCluster(
  deps: FencerDeps,
  nodeName: string,
  claimTtlSeconds: number,
): Promise<ObservedCluster> {
  const [nodes, version, claims] = await Promise.all([
    deps.cluster.listNodes(),
    deps.cluster.serverVersion().catch(() => null),
    deps.cluster.listFencingClaims(claimTtlSeconds),
  ]);
  return {
    totalNodes: nodes.length,
    unhealthyNodes: nodes.filter((n) => n.ready !== 'True').map((n) => n.name),
    fencingsInFlight: claims.filter((c) => c.node !== nodeName).map((c) => c.node),
    serverVersion: version ? { major: version.major, minor: version.minor } : null,
  };
}

async function observeWorkload(deps: FencerDeps, nodeName: string): Promise<ObservedWorkload> {
  const [pods, vas] = await Promise.all([
    deps.cluster.listPodsOnNode(nodeName),
    deps.cluster.listVolumeAttachments({ nodeName }),
  ]);
  return {
    pods: pods.map((p) => ({
      namespace: p.namespace,
      name: p.name,
      uid: p.uid,
      terminating: p.deletionTimestamp !== undefined,
      usesPersistentVolumes: p.claimNames.length > 0,
    })),
    volumeAttachments: vas.map((va) => ({
      name: va.name,
      uid: va.uid,
      persistentVolume: va.persistentVolumeName ?? null,
      attached: va.attached,
      deleting: va.deletionTimestamp !== undefined,
      attachError: va.attachError?.message ?? null,
      detachError: va.detachError?.message ?? null,
    })),
  };
}

/**
 * Observes the world afresh for one step: the node and its Lease, the cluster's health and the
 * fencings in flight, the instance behind the node (ownership, power, disks), and what still ties
 * volumes to the node. Provider failures become values (`ok: false`), never guesses.
 */
export async function observe(
  deps: FencerDeps,
  nodeName: string,
  cluster: string,
  claimTtlSeconds: number,
): Promise<Observed> {
  const [nodeView, lease, clusterFacts, workload] = await Promise.all([
    deps.cluster.getNode(nodeName),
    deps.cluster.getNodeLease(nodeName),
    observeCluster(deps, nodeName, claimTtlSeconds),
    observeWorkload(deps, nodeName),
  ]);
  const node = nodeView ? toObservedNode(nodeView, lease) : null;
  const { instance, fencer, ref } = node
    ? await observeInstance(deps, node.providerId, cluster)
    : { instance: null, fencer: null, ref: null };
  return {
    observation: {
      observedAt: deps.clock.now().toISOString(),
      node,
      cluster: clusterFacts,
      instance,
      workload,
    },
    fencer,
    ref,
  };
}
