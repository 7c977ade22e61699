import { hostname } from 'node:os';
import {
  CoordinationV1Api,
  CoreV1Api,
  type KubeConfig,
  StorageV1Api,
  VersionApi,
} from '@kubernetes/client-node';
import type {
  ClaimResult,
  Cluster,
  FencingClaim,
  LeaseView,
  MutationOptions,
  NodeEvent,
  NodeView,
  NodeWriteOptions,
  PersistentVolumeView,
  PodView,
  ServerVersion,
  Taint,
  VolumeAttachmentView,
} from '../../ports/cluster.js';
import { ClaimLease } from './claim-lease.js';
import { deleteVolumeAttachment, forceDeletePod } from './deletions.js';
import { isNotFound, toKubernetesApiError } from './errors.js';
import { recordNodeEvent } from './events.js';
import { type KubeClusterLogger, silentLogger } from './logger.js';
import { NodeWriter } from './node-writer.js';
import { listAll } from './pagination.js';
import { type ConflictRetryPolicy, DEFAULT_CONFLICT_RETRY } from './retry.js';
import { toPersistentVolumeView, toVolumeAttachmentView } from './storage-views.js';
import { toLeaseView, toNodeView, toPodView, toServerVersion } from './views.js';
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
  /** Items per page of every list. @default 500 */
  readonly pageSize?: number;
  /** The Events' `reportingInstance`. @default os.hostname() */
  readonly reportingInstance?: string;
  /** Attempts and back-off of read-modify-writes that lose a race. @default 8 attempts from 25 ms */
  readonly conflictRetry?: ConflictRetryPolicy;
  /** @default a logger that drops everything */
  readonly logger?: KubeClusterLogger;
  /** Stamps claims, taints and Events. @default () => new Date() */
  readonly now?: () => Date;
}

/**
 * The Cluster port on @kubernetes/client-node. Reads map 404 to `null`; writes are
 * read-modify-writes with `resourceVersion`, and dry run is the API server's own (`dryRun=All`:
 * validated and admitted, never persisted). Fencing claims are always real.
 */
export class KubeCluster implements Cluster {
  readonly #kubeConfig: KubeConfig;
  readonly #core: CoreV1Api;
  readonly #storage: StorageV1Api;
  readonly #coordination: CoordinationV1Api;
  readonly #pageSize: number;
  readonly #fieldManager: string;
  readonly #reportingInstance: string;
  readonly #logger: KubeClusterLogger;
  readonly #now: () => Date;
  readonly #nodes: NodeWriter;
  readonly #claims: ClaimLease;

  constructor(kubeConfig: KubeConfig, props: KubeClusterProps = {}) {
    this.#kubeConfig = kubeConfig;
    this.#core = kubeConfig.makeApiClient(CoreV1Api);
    this.#storage = kubeConfig.makeApiClient(StorageV1Api);
    this.#coordination = kubeConfig.makeApiClient(CoordinationV1Api);
    this.#pageSize = props.pageSize ?? 500;
    this.#fieldManager = props.fieldManager ?? 'kube-fencer';
    this.#reportingInstance = props.reportingInstance ?? hostname();
    this.#logger = props.logger ?? silentLogger;
    this.#now = props.now ?? (() => new Date());
    const retry = props.conflictRetry ?? DEFAULT_CONFLICT_RETRY;
    this.#nodes = new NodeWriter(this.#core, { fieldManager: this.#fieldManager, retry, now: this.#now });
    this.#claims = new ClaimLease(this.#coordination, {
      namespace: props.coordinationNamespace ?? 'kube-system',
      name: props.leaseName ?? 'kube-fencer',
      fieldManager: this.#fieldManager,
      retry,
      now: this.#now,
    });
  }

  async serverVersion(): Promise<ServerVersion> {
    try {
      return toServerVersion(await this.#kubeConfig.makeApiClient(VersionApi).getCode());
    } catch (error) {
      throw toKubernetesApiError('getCode', '/version', error);
    }
  }

  getNode(name: string): Promise<NodeView | null> {
    return this.#readOrNull('readNode', `node/${name}`, async () =>
      toNodeView(await this.#core.readNode({ name })),
    );
  }

  async listNodes(): Promise<readonly NodeView[]> {
    const nodes = await listAll('listNode', 'nodes', this.#pageSize, (page) => this.#core.listNode(page));
    return nodes.map(toNodeView);
  }

  getNodeLease(name: string): Promise<LeaseView | null> {
    return this.#readOrNull('readNamespacedLease', `lease/${NODE_LEASE_NAMESPACE}/${name}`, async () =>
      toLeaseView(await this.#coordination.readNamespacedLease({ name, namespace: NODE_LEASE_NAMESPACE })),
    );
  }

  async listPodsOnNode(nodeName: string): Promise<readonly PodView[]> {
    const fieldSelector = `spec.nodeName=${nodeName}`;
    const pods = await listAll('listPodForAllNamespaces', `pods on ${nodeName}`, this.#pageSize, (page) =>
      this.#core.listPodForAllNamespaces({ ...page, fieldSelector }),
    );
    return pods.map(toPodView);
  }

  async listVolumeAttachments(
    filter: { readonly nodeName?: string } = {},
  ): Promise<readonly VolumeAttachmentView[]> {
    // The API has no field selector on spec.nodeName for VolumeAttachments: filter here.
    const all = await listAll('listVolumeAttachment', 'volumeattachments', this.#pageSize, (page) =>
      this.#storage.listVolumeAttachment(page),
    );
    return all
      .filter((va) => filter.nodeName === undefined || va.spec.nodeName === filter.nodeName)
      .map(toVolumeAttachmentView);
  }

  async listPersistentVolumes(): Promise<readonly PersistentVolumeView[]> {
    const pvs = await listAll('listPersistentVolume', 'persistentvolumes', this.#pageSize, (page) =>
      this.#core.listPersistentVolume(page),
    );
    return pvs.map(toPersistentVolumeView);
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
    key: string,
    removeAnnotations: readonly string[],
    options: NodeWriteOptions,
  ): Promise<'removed' | 'absent'> {
    return this.#nodes.removeTaint(node, key, removeAnnotations, options);
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
    return forceDeletePod(this.#core, pod, options);
  }

  deleteVolumeAttachment(
    va: { readonly name: string; readonly uid: string },
    options: MutationOptions,
  ): Promise<'deleted' | 'gone'> {
    return deleteVolumeAttachment(this.#storage, va, options);
  }

  recordNodeEvent(node: string, event: NodeEvent): Promise<void> {
    const reporter = { component: this.#fieldManager, instance: this.#reportingInstance };
    return recordNodeEvent(this.#core, node, event, reporter, this.#logger, this.#now());
  }

  claimFencing(
    node: string,
    runId: string,
    limits: { readonly maxInFlight: number; readonly ttlSeconds: number },
  ): Promise<ClaimResult> {
    return this.#claims.claim(node, runId, limits);
  }

  releaseFencing(node: string, runId: string): Promise<void> {
    return this.#claims.release(node, runId);
  }

  listFencingClaims(ttlSeconds: number): Promise<readonly FencingClaim[]> {
    return this.#claims.list(ttlSeconds);
  }

  waitForNodeChange(node: string, timeoutMs: number, signal?: AbortSignal): Promise<'changed' | 'timeout'> {
    const apis = {
      kubeConfig: this.#kubeConfig,
      core: this.#core,
      storage: this.#storage,
      logger: this.#logger,
    };
    return waitForNodeChange(apis, node, timeoutMs, signal);
  }

  async #readOrNull<T>(operation: string, object: string, read: () => Promise<T>): Promise<T | null> {
    try {
      return await read();
    } catch (error) {
      if (isNotFound(error)) return null;
      throw toKubernetesApiError(operation, object, error);
    }
  }
}
