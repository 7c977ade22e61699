import { controlPlaneSignals, type StaticPodFacts } from '../../domain/control-plane.js';
import { ProviderIdError } from '../../domain/errors.js';
import type { InstanceRef } from '../../domain/instance.js';
import {
  FENCER_ANNOTATION,
  type FenceRecord,
  OUT_OF_SERVICE_TAINT,
  type TaintSnapshot,
} from '../../domain/node-marks.js';
import type {
  Fallible,
  Observation,
  ObservedCluster,
  ObservedInstance,
  ObservedNode,
  ObservedWorkload,
  ProviderFault,
} from '../../domain/observation.js';
import type {
  CSINodeView,
  LeaseView,
  NodeView,
  PodView,
  Taint,
  VolumeAttachmentView,
} from '../../ports/cluster.js';
import type { ComputeFencer, InstanceInspection } from '../../ports/compute-fencer.js';
import type { FencerDeps } from '../shared/deps.js';
import { csiVolumeOf, isImage, observeStorage, placeImagesOnClusters } from './observe-storage.js';

/** What a step observed, plus the handles it needs to act on it. */
export interface Observed {
  readonly observation: Observation;
  readonly fencer: ComputeFencer | null;
  readonly ref: InstanceRef | null;
}

/** How a step observes. */
export interface ObserveOptions {
  /** Claims older than this (on the API server's clock) are not in flight. */
  readonly claimTtlSeconds: number;
  /** Also ask the provider for the machine's disks (the drain needs them once proof of off is held). */
  readonly withDisks: boolean;
  /** The provider reads of one observation, retries included, end within this many ms. */
  readonly providerBudgetMs: number;
  /**
   * Ask the storage cluster even when the node holds no image now: the run committed to fencing its
   * storage clients, and Kubernetes may clear the VolumeAttachments before the blocklist is confirmed.
   */
  readonly withStorage?: boolean;
  /** Addresses the run's witness showed holding the node's images: still fenced (RunHistory.witnessed). */
  readonly witnessed?: readonly string[];
}

/**
 * How long the provider reads of one step may take in all. A step must end well inside its own
 * timeout (Lambda, Task state) so that a slow or throttling provider makes the next step look again,
 * rather than a decision taken on answers that aged while they were retried.
 */
export const PROVIDER_BUDGET_MS = 20_000;

/** The least a step's provider reads are given, however little of the run is left: one answer's worth. */
export const MIN_PROVIDER_BUDGET_MS = 2_000;

/**
 * A step's provider budget when its run has `remainingMs` left: never more than the run has (a
 * throttling provider must not carry a run past its `--timeout`), never less than one answer's worth.
 * `undefined`: the runner has no deadline of its own (a Step Functions task: its Lambda's timeout).
 */
export const stepProviderBudgetMs = (remainingMs: number | undefined): number =>
  remainingMs === undefined || !Number.isFinite(remainingMs)
    ? PROVIDER_BUDGET_MS
    : Math.min(PROVIDER_BUDGET_MS, Math.max(MIN_PROVIDER_BUDGET_MS, Math.floor(remainingMs)));

/** A taint as read, in the domain's exact form. */
export const toTaintSnapshot = (taint: Taint): TaintSnapshot => ({
  key: taint.key,
  value: taint.value ?? null,
  effect: taint.effect,
  timeAdded: taint.timeAdded ?? null,
});

/** A domain taint in the port's form (absent fields left out). */
export const toPortTaint = (taint: TaintSnapshot): Taint => ({
  key: taint.key,
  ...(taint.value === null ? {} : { value: taint.value }),
  effect: taint.effect as Taint['effect'],
  ...(taint.timeAdded === null ? {} : { timeAdded: taint.timeAdded }),
});

const isTaintSnapshot = (value: unknown): value is TaintSnapshot => {
  if (typeof value !== 'object' || value === null) return false;
  const { key, value: v, effect, timeAdded } = value as Record<string, unknown>;
  return (
    typeof key === 'string' &&
    (v === null || typeof v === 'string') &&
    typeof effect === 'string' &&
    typeof timeAdded === 'string'
  );
};

/**
 * Reads the fence record the fencer wrote beside its taint. An unreadable record, or one without the
 * exact taint (written before taints were recorded exactly), is no record: it could not tell the
 * fencer's taint from an identical one someone else added, so it never makes a taint the fencer's.
 */
export function parseFenceRecord(annotations: Readonly<Record<string, string>>): FenceRecord | null {
  const raw = annotations[FENCER_ANNOTATION.fenceRecord];
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<FenceRecord>;
    if (typeof value.runId !== 'string' || typeof value.fencedAt !== 'string') return null;
    if (!isTaintSnapshot(value.taint)) return null;
    return {
      runId: value.runId,
      fencedAt: value.fencedAt,
      instanceId: String(value.instanceId ?? ''),
      proof: String(value.proof ?? ''),
      taint: {
        key: value.taint.key,
        value: value.taint.value,
        effect: value.taint.effect,
        timeAdded: value.taint.timeAdded,
      },
      ...(Array.isArray(value.blocklist) && value.blocklist.every((e) => typeof e === 'string')
        ? { blocklist: value.blocklist }
        : {}),
      ...(typeof value.bootId === 'string' || value.bootId === null ? { bootId: value.bootId } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * The Node, its Lease and its CSINode as the domain sees them, read at `readAt`. The control plane is
 * told by its labels here (the common role labels and the operator's `controlPlaneLabels`); its static
 * pods are added by {@link withStaticPods} where the step lists the node's pods.
 */
export function toObservedNode(
  node: NodeView,
  lease: LeaseView | null,
  csiNode: CSINodeView | null,
  readAt: string,
  controlPlaneLabels: readonly string[] = [],
): ObservedNode {
  const signals = controlPlaneSignals({
    nodeName: node.name,
    labels: node.labels,
    extraLabels: controlPlaneLabels,
  });
  return {
    name: node.name,
    uid: node.uid,
    resourceVersion: node.resourceVersion,
    readAt,
    ready: node.ready === 'Missing' ? 'Unknown' : node.ready,
    readyReason: node.readyReason ?? null,
    lastHeartbeat: node.lastHeartbeat ?? null,
    leaseRenewTime: lease?.renewTime ?? null,
    leaseWrittenAt: lease?.writtenAt ?? null,
    providerId: node.providerId?.trim() ? node.providerId : null,
    addresses: node.addresses.map(({ type, address }) => ({ type, address })),
    csiNodeIds: (csiNode?.drivers ?? []).flatMap((d) =>
      d.nodeId ? [{ driver: d.name, nodeId: d.nodeId }] : [],
    ),
    bootId: node.bootId ?? null,
    controlPlane: signals.length > 0,
    ...(signals.length > 0 ? { controlPlaneSignals: signals } : {}),
    optedOut: FENCER_ANNOTATION.optOut in node.annotations,
    outOfServiceTaints: node.taints.filter((t) => t.key === OUT_OF_SERVICE_TAINT.key).map(toTaintSnapshot),
    fenceRecord: parseFenceRecord(node.annotations),
  };
}

/**
 * A provider error as a value. The adapter's verdict travels with it, judged once: an error it marked
 * not retryable is permanent (`credentials` when it said the credentials were rejected).
 */
export const faultOf = (err: unknown): ProviderFault => {
  const e = err as Error & { throttled?: unknown; retryable?: unknown; credentials?: unknown };
  const permanent =
    e?.retryable === false ? (e.credentials === true ? 'credentials' : 'rejected') : undefined;
  return {
    name: e?.name ?? 'Error',
    message: e?.message ?? String(err),
    ...(e?.throttled === true ? { throttled: true } : {}),
    ...(permanent ? { permanent } : {}),
  };
};

const fallible = async <T>(call: () => Promise<T>): Promise<Fallible<T>> => {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    return { ok: false, error: faultOf(err) };
  }
};

/** Other nodes whose providerID names the same machine (the same provider's instance id). */
function nodesNaming(
  deps: FencerDeps,
  fencer: ComputeFencer,
  ref: InstanceRef,
  nodeName: string,
  nodes: readonly NodeView[],
): string[] {
  return nodes
    .filter((n) => n.name !== nodeName && n.providerId && deps.compute.forProviderId(n.providerId) === fencer)
    .filter((n) => {
      try {
        return fencer.parseProviderId(n.providerId).instanceId === ref.instanceId;
      } catch {
        return false;
      }
    })
    .map((n) => n.name)
    .sort();
}

interface InstanceRead {
  readonly instance: ObservedInstance;
  readonly fencer: ComputeFencer | null;
  readonly ref: InstanceRef | null;
}

async function observeInstance(
  deps: FencerDeps,
  node: ObservedNode,
  nodes: readonly NodeView[],
  cluster: string,
  options: ObserveOptions,
): Promise<InstanceRead> {
  if (node.providerId === null) {
    return {
      instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
      fencer: null,
      ref: null,
    };
  }
  const fencer = deps.compute.forProviderId(node.providerId);
  if (!fencer) {
    const detail = `no configured provider handles providerID ${JSON.stringify(node.providerId)}`;
    return { instance: { resolved: false, problem: 'unknown-provider', detail }, fencer: null, ref: null };
  }
  let ref: InstanceRef;
  try {
    ref = fencer.parseProviderId(node.providerId);
  } catch (err) {
    if (!(err instanceof ProviderIdError)) throw err;
    return { instance: { resolved: false, problem: err.problem, detail: err.message }, fencer, ref: null };
  }
  // One read for ownership, power and identity; the disks only when the step needs them.
  const signal = AbortSignal.timeout(options.providerBudgetMs);
  const [inspection, disks] = await Promise.all([
    fallible<InstanceInspection>(() => fencer.inspect(ref, cluster, { signal })),
    options.withDisks ? fallible(() => fencer.attachedDisks(ref, { signal })) : Promise.resolve(null),
  ]);
  const part = <K extends keyof InstanceInspection>(key: K): Fallible<InstanceInspection[K]> =>
    inspection.ok ? { ok: true, value: inspection.value[key] } : inspection;
  return {
    instance: {
      resolved: true,
      ref,
      ownership: part('ownership'),
      power: part('power'),
      identity: part('identity'),
      otherNodes: nodesNaming(deps, fencer, ref, node.name, nodes),
      disks,
    },
    fencer,
    ref,
  };
}

async function observeCluster(
  deps: FencerDeps,
  nodeName: string,
  claimTtlSeconds: number,
): Promise<{ readonly facts: ObservedCluster; readonly nodes: readonly NodeView[] }> {
  const [nodes, version, claims] = await Promise.all([
    deps.cluster.listNodes(),
    deps.cluster.serverVersion().catch(() => null),
    deps.cluster.listFencingClaims(claimTtlSeconds),
  ]);
  const facts: ObservedCluster = {
    totalNodes: nodes.length,
    unhealthyNodes: nodes.filter((n) => n.ready !== 'True').map((n) => n.name),
    fencingsInFlight: claims.claims.filter((c) => c.node !== nodeName).map((c) => c.node),
    maxInFlight: claims.maxInFlight,
    serverVersion: version ? { major: version.major, minor: version.minor } : null,
  };
  return { facts, nodes };
}

/** The node with the control-plane signs its static pods (etcd, kube-apiserver) give, if any. */
export function withStaticPods(node: ObservedNode, pods: readonly StaticPodFacts[]): ObservedNode {
  const fromPods = controlPlaneSignals({ nodeName: node.name, labels: {}, pods });
  if (fromPods.length === 0) return node;
  const signals = [...(node.controlPlaneSignals ?? []), ...fromPods];
  return { ...node, controlPlane: true, controlPlaneSignals: signals };
}

const staticPodFacts = (pod: PodView): StaticPodFacts => ({
  namespace: pod.namespace,
  name: pod.name,
  mirror: pod.mirror === true,
  ...(pod.component !== undefined ? { component: pod.component } : {}),
});

/** The node's pods and VolumeAttachments; each attachment says whether it is a network image. */
async function observeWorkload(
  deps: FencerDeps,
  nodeName: string,
): Promise<{ workload: ObservedWorkload; staticPods: readonly StaticPodFacts[] }> {
  const [pods, vas] = await Promise.all([
    deps.cluster.listPodsOnNode(nodeName),
    deps.cluster.listVolumeAttachments({ nodeName }),
  ]);
  return { workload: toObservedWorkload(deps, pods, vas), staticPods: pods.map(staticPodFacts) };
}

function toObservedWorkload(
  deps: FencerDeps,
  pods: readonly PodView[],
  vas: readonly VolumeAttachmentView[],
): ObservedWorkload {
  return {
    pods: pods.map((p) => ({
      namespace: p.namespace,
      name: p.name,
      uid: p.uid,
      terminating: p.deletionTimestamp !== undefined,
      claimNames: p.claimNames,
      toleratesOutOfService: p.toleratesOutOfService,
    })),
    volumeAttachments: vas.map((va) => ({
      name: va.name,
      uid: va.uid,
      persistentVolume: va.persistentVolumeName ?? null,
      attached: va.attached,
      deleting: va.deletionTimestamp !== undefined,
      attachError: va.attachError?.message ?? null,
      detachError: va.detachError?.message ?? null,
      attacher: va.attacher || null,
      csiNodeId: va.csiNodeId ?? null,
      image: isImage(deps, va.attacher || null),
    })),
  };
}

/**
 * Reads the node, its Lease and its CSINode, stamped with the API server's time when it served the
 * Lease: liveness is aged on the clock the kubelet's renewals reach, never on the fencer's own, which
 * may run fast or slow (SAFETY.md rule 2).
 */
export async function readNode(deps: FencerDeps, nodeName: string): Promise<ObservedNode | null> {
  return (await readNodeAndVolumes(deps, nodeName)).node;
}

/** {@link readNode}, with the volumes its kubelet last reported in use. */
async function readNodeAndVolumes(
  deps: FencerDeps,
  nodeName: string,
): Promise<{ node: ObservedNode | null; volumesInUse: readonly string[] }> {
  const [node, { lease, servedAt }, csiNode] = await Promise.all([
    deps.cluster.getNode(nodeName),
    deps.cluster.getNodeLease(nodeName),
    deps.cluster.getCSINode(nodeName),
  ]);
  return {
    node: node ? toObservedNode(node, lease, csiNode, servedAt, deps.controlPlaneLabels) : null,
    volumesInUse: node?.volumesInUse ?? [],
  };
}

/** The CSI driver of a volume's unique name (`kubernetes.io/csi/<driver>^<handle>`); `null` for any other. */
const csiDriverOf = (uniqueName: string): string | null => csiVolumeOf(uniqueName).driver;

/**
 * Observes the world afresh for one step: the node with its Lease and CSINode, the cluster's health
 * and the fencings in flight, the machine behind the node (one provider read: ownership, power,
 * identity; disks only when asked), and what still ties volumes to the node. Provider failures become
 * values (`ok: false`), never guesses.
 */
export async function observe(
  deps: FencerDeps,
  nodeName: string,
  cluster: string,
  options: ObserveOptions,
): Promise<Observed> {
  const [read, clusterRead, { workload: attachedWorkload, staticPods }] = await Promise.all([
    readNodeAndVolumes(deps, nodeName),
    observeCluster(deps, nodeName, options.claimTtlSeconds),
    observeWorkload(deps, nodeName),
  ]);
  const { volumesInUse } = read;
  const node = read.node ? withStaticPods(read.node, staticPods) : null;
  const imagesInUse = volumesInUse.filter((v) => isImage(deps, csiDriverOf(v)));
  const workload = await placeImagesOnClusters(
    deps,
    imagesInUse.length > 0 ? { ...attachedWorkload, imagesInUse } : attachedWorkload,
  );
  // The drivers whose isolation matters: the node's images (attached, or last reported in use by its
  // kubelet), and those its fence record (or run) blocklisted.
  const fenceable = workload.volumeAttachments.filter((va) => va.image && va.unservedCluster === undefined);
  const images = [...fenceable.map((va) => va.attacher), ...(workload.imagesInUse ?? []).map(csiDriverOf)];
  const recorded = node?.fenceRecord?.blocklist?.length || options.withStorage ? [null] : [];
  const signal = AbortSignal.timeout(options.providerBudgetMs);
  const [{ instance, fencer, ref }, storage] = node
    ? await Promise.all([
        observeInstance(deps, node, clusterRead.nodes, cluster, options),
        observeStorage(
          deps,
          node,
          clusterRead.nodes,
          [...images, ...recorded],
          signal,
          fenceable.flatMap((va) => (va.persistentVolume ? [va.persistentVolume] : [])),
          options.witnessed,
          workload.imagesInUse ?? [],
        ),
      ])
    : [{ instance: null, fencer: null, ref: null }, null];
  return {
    observation: {
      observedAt: deps.clock.now().toISOString(),
      node,
      cluster: clusterRead.facts,
      instance,
      workload,
      storage,
    },
    fencer,
    ref,
  };
}

/**
 * The same observation with the node read again right now: what a step checks just before it powers
 * a machine off or taints a node, so that a node that came back while the provider answered is seen.
 */
export async function withFreshNode(
  deps: FencerDeps,
  observed: Observed,
  nodeName: string,
): Promise<Observed> {
  const fresh = await readNode(deps, nodeName);
  // The re-read lists no pods: a control-plane sign this step saw (a static pod) stays one for its re-check.
  const seen = observed.observation.node?.controlPlaneSignals ?? [];
  const node =
    fresh && seen.length > 0
      ? {
          ...fresh,
          controlPlane: true,
          controlPlaneSignals: [...new Set([...(fresh.controlPlaneSignals ?? []), ...seen])],
        }
      : fresh;
  return {
    ...observed,
    observation: { ...observed.observation, node, observedAt: deps.clock.now().toISOString() },
  };
}
