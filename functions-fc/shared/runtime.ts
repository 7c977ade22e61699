/**
 * The Function Compute functions' composition root: settings parsed once at cold start, the cluster's
 * kubeconfig (a file read during init, or a KMS secret / OOS parameter fetched on first use with the
 * role's credentials and kept for a while), and the use cases' dependencies, rebuilt when Function
 * Compute rotates the role's credentials. Only Alibaba's SDKs are here: no AWS client is bundled.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EcsComputeFencer } from '../../lib/adapters/alicloud-ecs/ecs-compute-fencer.js';
import { alicloudProviderIds } from '../../lib/adapters/alicloud-ecs/provider-id.js';
import { createFcClient, FcAsyncWorkflow, taskIdOf } from '../../lib/adapters/alicloud-fc/index.js';
import { readSecret } from '../../lib/adapters/alicloud-secrets/index.js';
import { kubeconfigEndpoint } from '../../lib/adapters/kubernetes/access/endpoints.js';
import type { ApiEndpoint } from '../../lib/adapters/kubernetes/api/endpoint.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/kube-cluster.js';
import type { FencerDeps } from '../../lib/app/shared/deps.js';
import type { ProviderIdReaders, TriggerDeps, TriggerSettings } from '../../lib/app/triggers/index.js';
import { composeDeps, ProviderRegistry } from '../../lib/compose.js';
import { parseAlibabaSettings } from '../../lib/config/alibaba-settings.js';
import { controlPlaneLabelsFromEnv } from '../../lib/config/control-plane-labels.js';
import { FcClusterAccess, parseFcSettings } from '../../lib/config/fc-settings.js';
import { createFcTelemetry } from '../../lib/observability/fc.js';
import type { RoleCredentials } from './fc-context.js';

/** A run's task id from its name (the run function reports under it). */
export { taskIdOf };

export const settings = parseFcSettings(process.env);
export const telemetry = createFcTelemetry({ level: settings.logLevel });
const alibaba = parseAlibabaSettings({ ...process.env, ALIBABA_CLOUD_REGION: settings.region });

/** What the triggers fill into every request. */
export const triggerSettings: TriggerSettings = {
  cluster: settings.cluster,
  requestDefaults: settings.requestDefaults,
};

/** A kubeconfig from KMS or OOS is read again after this long (a rotated secret is picked up). */
const SECRET_TTL_MS = 5 * 60_000;

let kubeconfig: { endpoint: ApiEndpoint; readAt: number } | undefined;
if (settings.access.kind === FcClusterAccess.KubeconfigFile) {
  const { path } = settings.access;
  kubeconfig = {
    endpoint: kubeconfigEndpoint(readFileSync(path, 'utf8'), { source: path, baseDir: dirname(path) }),
    readAt: Number.POSITIVE_INFINITY,
  };
}

/** The API server and its credentials, from the configured kubeconfig. */
async function clusterEndpoint(credentials: RoleCredentials): Promise<ApiEndpoint> {
  if (kubeconfig && Date.now() - kubeconfig.readAt < SECRET_TTL_MS) return kubeconfig.endpoint;
  const { access } = settings;
  if (access.kind === FcClusterAccess.KubeconfigFile) throw new Error('unreachable: read at init');
  const text = await readSecret(
    { region: settings.region, credentials, ...(access.endpoint ? { endpoint: access.endpoint } : {}) },
    { kind: access.kind, name: access.name },
  );
  const endpoint = kubeconfigEndpoint(text, { source: `${access.kind} ${access.name}` });
  kubeconfig = { endpoint, readAt: Date.now() };
  return endpoint;
}

/** Alibaba providerIDs only: a trigger maps instances to nodes and makes no provider call. */
const providerIdReaders: ProviderIdReaders = new ProviderRegistry([alicloudProviderIds]);

/** Keeps one value per (credentials, kubeconfig), rebuilt when either changes. */
function perCredentials<T>(build: (credentials: RoleCredentials, endpoint: ApiEndpoint) => T) {
  let current: { key: string; endpoint: ApiEndpoint; value: T } | undefined;
  return async (credentials: RoleCredentials): Promise<T> => {
    const endpoint = await clusterEndpoint(credentials);
    const key = `${credentials.accessKeyId}\n${credentials.securityToken ?? ''}`;
    if (!current || current.key !== key || current.endpoint !== endpoint) {
      current = { key, endpoint, value: build(credentials, endpoint) };
    }
    return current.value;
  };
}

const clock = { now: () => new Date() };

/** The triggers' dependencies: Kubernetes reads, providerID parsing, and the run function's async tasks. */
export const triggerDeps = perCredentials((credentials, endpoint): TriggerDeps => {
  if (!settings.runFunction) throw new Error('FENCER_RUN_FUNCTION is not set: a trigger cannot start runs');
  const client = createFcClient({
    region: settings.region,
    credentials,
    ...(settings.accountId ? { accountId: settings.accountId } : {}),
    ...(settings.fcEndpoint ? { endpoint: settings.fcEndpoint } : {}),
  });
  return {
    cluster: new KubeCluster(endpoint),
    compute: providerIdReaders,
    workflow: new FcAsyncWorkflow({ functionName: settings.runFunction, client }),
    clock,
    log: telemetry.log,
    metrics: telemetry.metrics,
  };
});

/** The fencing use cases' dependencies: Kubernetes and the ECS fencer, composed as every deployment's are. */
export const fencerDeps = perCredentials(
  (credentials, endpoint): FencerDeps =>
    composeDeps({
      endpoint,
      computeFencers: [new EcsComputeFencer({ region: settings.region, ...alibaba, credentials })],
      controlPlaneLabels: controlPlaneLabelsFromEnv(process.env),
      log: telemetry.log,
      metrics: telemetry.metrics,
    }),
);
