import { hostname } from 'node:os';
import type { V1VolumeAttachment, VersionInfo } from '@kubernetes/client-node';
import type {
  ClaimResult,
  Cluster,
  CSINodeView,
  EventTarget,
  FencingClaims,
  LeaseRead,
  MutationOptions,
  NodeEvent,
  NodeProviderId,
  NodeReadiness,
  NodeView,
  NodeWriteOptions,
  ObjectEventView,
  PersistentVolumeClaimView,
  PersistentVolumeView,
  PodView,
  ServerVersion,
  StorageClassView,
  Taint,
  VolumeAttachmentFilter,
  VolumeAttachmentView,
} from '../../ports/cluster.js';
import type { NodeChange, NodeChanges } from '../../ports/node-changes.js';
import { ApiClient } from './api/api-client.js';
import type { ApiEndpoint } from './api/endpoint.js';
import { apiPaths } from './api/paths.js';
import { ClaimLease } from './claim-lease.js';
import { deleteVolumeAttachment, forceDeletePod } from './deletions.js';
import { toKubernetesApiError } from './errors.js';
import { recordNodeEvent } from './events.js';
import { LeaderLease } from './leader-lease.js';
import { readLease } from './lease-read.js';
import { type KubeClusterLogger, silentLogger } from './logger.js';
import { followNodes } from './node-changes.js';
import { listNodeProviderIds, listNodeReadiness } from './node-summaries.js';
import { NodeWriter } from './node-writer.js';
import { RawLister } from './raw-list.js';
import { ClusterReads, getOrNull } from './reads.js';
import { type ConflictRetryPolicy, DEFAULT_CONFLICT_RETRY } from './retry.js';
import { toPersistentVolumeView, toVolumeAttachmentView } from './storage-views.js';
import { toNodeView, toPodView as toPodViewOf, toServerVersion } from './views.js';
import { waitForNodeChange } from './watch.js';

/** Where kubelets keep their heartbeat Leases. */
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** Configuration of {@link KubeCluster}. */
export interface KubeClusterProps {
  /** Namespace of the Lease that holds the fencing claims. @default 'kube-system' */
  readonly coordinationNamespace?: string;
  /** Name of that Lease. @default 'kube-fencer' */
  readonly leaseName?: string;
  /** Field manager of every write, and the Events' reporting component. @default 'kube-fencer' */
  readonly fieldManager?: string;
  /**
   * Items per page of every list. @default 500 for JSON lists, {@link LARGE_LIST_PAGE_SIZE} for the
   * VolumeAttachment and PV lists, read in protobuf
   */
  readonly pageSize?: number;
  /** The Events' `reportingInstance`. @default os.hostname() */
  readonly reportingInstance?: string;
  /** Attempts and back-off of read-modify-writes that lose a race. @default 8 attempts from 25 ms */
  readonly conflictRetry?: ConflictRetryPolicy;
  /** @default a logger that drops everything */
  readonly logger?: KubeClusterLogger;
  /** Stamps taints without a `timeAdded` and Events (claims use the API server's clock). @default () => new Date() */
  readonly now?: () => Date;
}

/**
 * Items per page of the lists that can hold a hundred thousand objects (VolumeAttachments, PVs), read
 * in protobuf: a page of 2,000 is about 1.3 MB, decoded one item at a time. Every page costs the API
 * server a request's overhead, so small pages are slow: 125,000 VolumeAttachments took 3.5 s in pages
 * of 500 and 1.2 s in pages of 5,000 (JSON: 6.0 s and 2.3 s); 5,000 saved little more time over 2,000
 * in a whole sweep and peaked higher (docs/cli.md, "At scale").
 */
export const LARGE_LIST_PAGE_SIZE = 2000;

/**
 * The Cluster port on the Kubernetes REST API (JSON over node:https; the largest lists in protobuf).
 * Reads map 404 to `null`; writes are read-modify-writes with `resourceVersion`, and dry run is the
 * API server's own (`dryRun=All`: validated and admitted, never persisted). Fencing claims are always
 * real.
 */
export class KubeCluster implements Cluster, NodeChanges {
  readonly #api: ApiClient;
  readonly #fieldManager: string;
  readonly #reportingInstance: string;
  readonly #logger: KubeClusterLogger;
  readonly #now: () => Date;
  readonly #nodes: NodeWriter;
  readonly #claims: ClaimLease;
  readonly #lister: RawLister;
  readonly #reads: ClusterReads;
  readonly #largePageSize: number;

  constructor(endpoint: ApiEndpoint, props: KubeClusterProps = {}) {
    this.#api = new ApiClient(endpoint);
    this.#lister = new RawLister(this.#api, props.pageSize ?? 500);
    this.#largePageSize = props.pageSize ?? LARGE_LIST_PAGE_SIZE;
    this.#reads = new ClusterReads(this.#api, this.#lister);
    this.#fieldManager = props.fieldManager ?? 'kube-fencer';
    this.#reportingInstance = props.reportingInstance ?? hostname();
    this.#logger = props.logger ?? silentLogger;
    this.#now = props.now ?? (() => new Date());
    const retry = props.conflictRetry ?? DEFAULT_CONFLICT_RETRY;
    this.#nodes = new NodeWriter(this.#api, { fieldManager: this.#fieldManager, retry, now: this.#now });
    this.#claims = new ClaimLease(this.#api, {
      namespace: props.coordinationNamespace ?? 'kube-system',
      name: props.leaseName ?? 'kube-fencer',
      fieldManager: this.#fieldManager,
      retry,
    });
  }

  async serverVersion(): Promise<ServerVersion> {
    try {
      return toServerVersion(await this.#api.call<VersionInfo>({ method: 'GET', path: apiPaths.version }));
    } catch (error) {
      throw toKubernetesApiError('getCode', apiPaths.version, error);
    }
  }

  getNode(name: string): Promise<NodeView | null> {
    return getOrNull(this.#api, 'readNode', apiPaths.node(name), toNodeView);
  }

  listNodes(): Promise<readonly NodeView[]> {
    return this.#lister.list('listNode', apiPaths.nodes, {}, toNodeView);
  }

  listNodeReadiness(): Promise<readonly NodeReadiness[]> {
    return listNodeReadiness(this.#lister);
  }

  listNodeProviderIds(): Promise<readonly NodeProviderId[]> {
    return listNodeProviderIds(this.#lister);
  }

  getNodeLease(name: string): Promise<LeaseRead> {
    return readLease(this.#api, apiPaths.lease(NODE_LEASE_NAMESPACE, name));
  }

  listPodsOnNode(nodeName: string): Promise<readonly PodView[]> {
    return this.#lister.list(
      'listPodForAllNamespaces',
      apiPaths.pods,
      { fieldSelector: `spec.nodeName=${nodeName}` },
      toPodViewOf,
    );
  }

  listVolumeAttachments(filter: VolumeAttachmentFilter = {}): Promise<readonly VolumeAttachmentView[]> {
    // The API has no field selector on spec.nodeName for VolumeAttachments: filter page by page, so
    // only the wanted views outlive their page. Consistent: fencing and sweeps act on what it shows.
    const wanted =
      filter.nodeName !== undefined || filter.nodeNames !== undefined
        ? new Set([...(filter.nodeName === undefined ? [] : [filter.nodeName]), ...(filter.nodeNames ?? [])])
        : undefined;
    return this.#lister.list(
      'listVolumeAttachment',
      apiPaths.volumeAttachments,
      {},
      (va: V1VolumeAttachment) =>
        wanted === undefined || wanted.has(va.spec.nodeName) ? toVolumeAttachmentView(va) : undefined,
      { protobuf: 'VolumeAttachmentList', pageSize: this.#largePageSize },
    );
  }

  listPersistentVolumes(): Promise<readonly PersistentVolumeView[]> {
    return this.#lister.list('listPersistentVolume', apiPaths.persistentVolumes, {}, toPersistentVolumeView, {
      protobuf: 'PersistentVolumeList',
      pageSize: this.#largePageSize,
    });
  }

  getVolumeAttachment(name: string): Promise<VolumeAttachmentView | null> {
    return this.#reads.getVolumeAttachment(name);
  }

  getPersistentVolume(name: string): Promise<PersistentVolumeView | null> {
    return this.#reads.getPersistentVolume(name);
  }

  getPod(namespace: string, name: string): Promise<PodView | null> {
    return this.#reads.getPod(namespace, name);
  }

  listPods(filter?: { readonly namespace?: string; readonly phase?: string }): Promise<readonly PodView[]> {
    return this.#reads.listPods(filter);
  }

  getPersistentVolumeClaim(namespace: string, name: string): Promise<PersistentVolumeClaimView | null> {
    return this.#reads.getPersistentVolumeClaim(namespace, name);
  }

  listPersistentVolumeClaims(namespace?: string): Promise<readonly PersistentVolumeClaimView[]> {
    return this.#reads.listPersistentVolumeClaims(namespace);
  }

  listStorageClasses(): Promise<readonly StorageClassView[]> {
    return this.#reads.listStorageClasses();
  }

  listCSINodes(): Promise<readonly CSINodeView[]> {
    return this.#reads.listCSINodes();
  }

  getCSINode(name: string): Promise<CSINodeView | null> {
    return this.#reads.getCSINode(name);
  }

  listEvents(
    target: EventTarget,
    options?: { readonly limit?: number },
  ): Promise<readonly ObjectEventView[]> {
    return this.#reads.listEvents(target, options);
  }

  addTaint(
    node: string,
    taint: Taint,
    annotations: Readonly<Record<string, string>>,
    options: NodeWriteOptions,
  ): Promise<'added' | 'already-present'> {
    return this.#nodes.addTaint(node, taint, annotations, options);
  }

  removeTaint(
    node: string,
    taint: Taint,
    removeAnnotations: readonly string[],
    options: NodeWriteOptions,
  ): Promise<'removed' | 'absent'> {
    return this.#nodes.removeTaint(node, taint, removeAnnotations, options);
  }

  annotateNode(
    node: string,
    annotations: Readonly<Record<string, string | null>>,
    options: NodeWriteOptions,
  ): Promise<void> {
    return this.#nodes.annotateNode(node, annotations, options);
  }

  forceDeletePod(
    pod: { readonly namespace: string; readonly name: string; readonly uid: string },
    options: MutationOptions,
  ): Promise<'deleted' | 'gone'> {
    return forceDeletePod(this.#api, pod, options);
  }

  deleteVolumeAttachment(
    va: { readonly name: string; readonly uid: string },
    options: MutationOptions,
  ): Promise<'deleted' | 'gone'> {
    return deleteVolumeAttachment(this.#api, va, options);
  }

  recordNodeEvent(node: string, event: NodeEvent): Promise<void> {
    const reporter = { component: this.#fieldManager, instance: this.#reportingInstance };
    return recordNodeEvent(this.#api, node, event, reporter, this.#logger, this.#now());
  }

  claimFencing(node: string, runId: string, options: { readonly ttlSeconds: number }): Promise<ClaimResult> {
    return this.#claims.claim(node, runId, options.ttlSeconds);
  }

  releaseFencing(node: string, runId: string): Promise<void> {
    return this.#claims.release(node, runId);
  }

  listFencingClaims(ttlSeconds: number): Promise<FencingClaims> {
    return this.#claims.list(ttlSeconds);
  }

  setMaxInFlight(limit: number): Promise<void> {
    return this.#claims.setMaxInFlight(limit);
  }

  waitForNodeChange(node: string, timeoutMs: number, signal?: AbortSignal): Promise<'changed' | 'timeout'> {
    return waitForNodeChange({ api: this.#api, logger: this.#logger }, node, timeoutMs, signal);
  }

  followNodes(onChange: (change: NodeChange | null) => void, signal: AbortSignal): Promise<void> {
    return followNodes(this.#api, this.#logger, onChange, signal);
  }

  /** The controller's leader Lease, written by this client's field manager. */
  leaderLock(namespace: string, name: string): LeaderLease {
    return new LeaderLease(this.#api, { namespace, name, fieldManager: this.#fieldManager });
  }
}
