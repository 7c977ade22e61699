/**
 * One step's observation of the world (observe-node, observe-instance, observe-workload and
 * observe-storage read its parts), and the node read again right before an action.
 */
import type { InstanceRef } from '../../domain/instance.js';
import type { Observation } from '../../domain/observation.js';
import type { ComputeFencer } from '../../ports/compute-fencer.js';
import type { FencerDeps } from '../shared/deps.js';
import { observeInstance } from './observe-instance.js';
import { readNode, readNodeAndVolumes, withStaticPods } from './observe-node.js';
import { csiVolumeOf, isImage, observeStorage, placeImagesOnClusters } from './observe-storage.js';
import { observeCluster, observeWorkload } from './observe-workload.js';

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
