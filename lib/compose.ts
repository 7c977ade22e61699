/**
 * The composition shared by every deployment kind: the cluster, the storage fencers, the providers'
 * routing and the run's checkpoints, around the compute fencers each deployment builds with its own
 * cloud's SDK (lib/compose-aws.ts for EC2; the Alibaba ECS fencer in the CLI and the Function Compute
 * runtime), so that no bundle carries another cloud's SDK. Each deployment's root starts here: the
 * CLI (cli/compose.ts), the Lambda functions (functions/shared/), Function Compute (functions-fc/shared/).
 */
import { CephRbdStorageFencer, NetworkFenceStorageFencer } from './adapters/ceph-rbd/index.js';
import type { CephNetworkFenceSettings, CephRbdSettings } from './adapters/ceph-rbd/settings.js';
import type { ApiEndpoint } from './adapters/kubernetes/api/endpoint.js';
import { KubeCluster, KubeNetworkFences } from './adapters/kubernetes/index.js';
import { NO_CHECKPOINTS, nodeCheckpoints, type RunCheckpoints } from './app/fence/run-checkpoint.js';
import type { FencerDeps } from './app/shared/deps.js';
import { runCheckpointCodec } from './config/run-checkpoint.js';
import { type AppLogger, createLogger, InMemoryMetrics } from './observability/index.js';
import type { Metrics } from './ports/audit.js';
import type { ComputeFencer, ProviderIdReader } from './ports/compute-fencer.js';
import type { ComputeProviders } from './ports/compute-providers.js';

export interface FencerConfig {
  /** The API server and its credentials (from a kubeconfig, Secrets Manager, or an EKS token). */
  readonly endpoint: ApiEndpoint;
  /**
   * The compute fencers, built by the deployment's own root (the EC2 fencer by lib/compose-aws.ts, the
   * Alibaba ECS fencer by the CLI or the Function Compute runtime). @default none: nodes are served by
   * no provider (a command that needs Kubernetes only)
   */
  readonly computeFencers?: readonly ComputeFencer[];
  /** The Ceph cluster whose RBD images the fencer isolates by blocklist; none without it. */
  readonly ceph?: CephRbdSettings;
  /** Or the same through csi-addons NetworkFences (Rook, ODF, Ceph 20); never both. */
  readonly cephNetworkFence?: CephNetworkFenceSettings;
  /** The use cases' log; the adapters log through it too (a failed Event write, a power-off request). */
  readonly log?: AppLogger;
  readonly metrics?: Metrics;
  /** Who writes the Kubernetes Events, e.g. the Lambda function's name. @default the host name */
  readonly reportingInstance?: string;
  /**
   * Items per page of every Kubernetes list. @default 500 (as kubectl's `--chunk-size`), and
   * 2,000 for the VolumeAttachment and PV lists, read in protobuf
   */
  readonly pageSize?: number;
  /** Label keys that mark a control-plane node on top of the common role labels. @default none */
  readonly controlPlaneLabels?: readonly string[];
}

/**
 * Routes a providerID to the reader (a compute fencer, or a trigger's parser) that says it owns it:
 * each adapter knows its own providerIDs. The node's name is never read.
 */
export class ProviderRegistry<R extends ProviderIdReader = ComputeFencer> {
  constructor(private readonly readers: readonly R[]) {}

  forProviderId(providerId: string): R | null {
    return this.readers.find((reader) => reader.ownsProviderId(providerId)) ?? null;
  }
}

/** The Ceph fencer the configuration asks for: through the mgr's restful module, or csi-addons. */
function storageFencers(config: FencerConfig): FencerDeps['storage'] {
  if (config.ceph && config.cephNetworkFence) {
    throw new Error('configure Ceph through the restful module or through csi-addons, not both');
  }
  if (config.cephNetworkFence) {
    const fences = new KubeNetworkFences(config.endpoint);
    return [new NetworkFenceStorageFencer({ settings: config.cephNetworkFence, fences })];
  }
  return config.ceph ? [new CephRbdStorageFencer({ settings: config.ceph })] : [];
}

/** Builds the use cases' dependencies from configuration. */
/** The dependencies as composed here: the use cases' own, with the Kubernetes adapter itself (its watches and Leases). */
export type ComposedDeps = FencerDeps & { readonly cluster: KubeCluster };

export function composeDeps(config: FencerConfig): ComposedDeps {
  const log = config.log ?? createLogger();
  return {
    cluster: new KubeCluster(config.endpoint, {
      logger: log,
      ...(config.reportingInstance ? { reportingInstance: config.reportingInstance } : {}),
      ...(config.pageSize ? { pageSize: config.pageSize } : {}),
    }),
    compute: new ProviderRegistry(config.computeFencers ?? []) satisfies ComputeProviders,
    storage: storageFencers(config),
    clock: { now: () => new Date() },
    log,
    metrics: config.metrics ?? new InMemoryMetrics(),
    ...(config.controlPlaneLabels?.length ? { controlPlaneLabels: config.controlPlaneLabels } : {}),
  };
}

/**
 * The checkpoints of one serverless run on its Nodes, sealed under the run's secret. A run started by a
 * version before sealed checkpoints carries none: it keeps no checkpoint at all (none on the Node could
 * be told from a forgery), and says so.
 */
export function runCheckpoints(deps: FencerDeps, runId: string, seal: string | undefined): RunCheckpoints {
  if (seal === undefined) {
    deps.log.warn('this run carries no seal (started by an older version): it keeps no checkpoint', {
      runId,
    });
    return NO_CHECKPOINTS;
  }
  return nodeCheckpoints(deps.cluster, runCheckpointCodec(seal), () => deps.clock.now());
}
