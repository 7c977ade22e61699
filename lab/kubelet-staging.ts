/**
 * The node side of CSI drivers whose volumes a kubelet must stage before a pod can run (ceph-csi's RBD
 * in the lab): the contract the simulated kubelets call, and the FailedMount events a real kubelet
 * records while staging fails.
 */
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from '@kubernetes/client-node';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** A PersistentVolume of the staged driver, as the node plugin sees it. */
export interface StagedVolume {
  readonly pv: string;
  /** `spec.csi.volumeHandle`. */
  readonly handle: string;
  /** `spec.csi.volumeAttributes` (ceph-csi: `pool`, `imageName`, `clusterID`). */
  readonly attributes: Readonly<Record<string, string>>;
}

/** What NodeStage came to: ready, still working on it, or failed with the error the kubelet reports. */
export type StageResult =
  | { readonly state: 'ready' }
  | { readonly state: 'pending' }
  | { readonly state: 'failed'; readonly message: string };

/** A CSI node plugin the simulated kubelets drive. */
export interface NodeStager {
  /** The CSI driver name (`rbd.csi.ceph.com`). */
  readonly driver: string;
  /** The node's InternalIP when it uses this driver (its storage-network address), else undefined. */
  addressOf(node: string): string | undefined;
  /** NodeStage + NodePublish; called every kubelet tick until `ready`. */
  stage(node: string, volume: StagedVolume): Promise<StageResult>;
  /** NodeUnpublish + NodeUnstage: the pod is gone from a live node. */
  unstage(node: string, volume: StagedVolume): Promise<void>;
  /** What is staged on the node now (a kubelet cleans up what no pod uses any more). */
  staged(node: string): readonly StagedVolume[];
}

/** How often a kubelet repeats the same warning: it counts repeats in one Event in between. */
const REPEAT_EVERY_MS = 5000;

/**
 * Records `Warning FailedMount` Events on pods as a kubelet does, one Event per pod and message whose
 * `count` grows ("x9 over 9m"), at most every few seconds.
 */
export class FailedMountRecorder {
  private readonly core: CoreV1Api;
  private readonly recorded = new Map<string, { name: string; count: number; last: number }>();

  constructor(kc: KubeConfig) {
    this.core = kc.makeApiClient(CoreV1Api);
  }

  async record(pod: V1Pod, node: string, volume: StagedVolume, error: string): Promise<void> {
    const namespace = pod.metadata?.namespace ?? 'default';
    const message = `MountVolume.MountDevice failed for volume "${volume.pv}" : rpc error: code = Internal desc = ${error}`;
    const key = `${pod.metadata?.uid}/${message}`;
    const seen = this.recorded.get(key);
    const now = new Date();
    if (seen && now.getTime() - seen.last < REPEAT_EVERY_MS) return;
    if (seen) {
      seen.count++;
      seen.last = now.getTime();
      await this.core
        .patchNamespacedEvent(
          { name: seen.name, namespace, body: { count: seen.count, lastTimestamp: now } },
          merge,
        )
        .catch(() => this.recorded.delete(key));
      return;
    }
    const name = `${pod.metadata?.name}.${now.getTime().toString(16)}`;
    this.recorded.set(key, { name, count: 1, last: now.getTime() });
    await this.core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name, namespace },
        involvedObject: {
          kind: 'Pod',
          namespace,
          name: pod.metadata?.name,
          uid: pod.metadata?.uid,
          apiVersion: 'v1',
        },
        reason: 'FailedMount',
        message,
        type: 'Warning',
        source: { component: 'kubelet', host: node },
        reportingComponent: 'kubelet',
        reportingInstance: node,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
  }
}
