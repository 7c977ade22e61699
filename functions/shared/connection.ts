/**
 * Settings parsed once at cold start, and the cluster connection: made on first use (EKS, a secret)
 * or during init (a kubeconfig file), and renewed before it expires (an EKS token lives 15 minutes,
 * a Lambda container longer).
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Connection } from '../../lib/adapters/kubernetes/access/connection.js';
import { kubeconfigEndpoint } from '../../lib/adapters/kubernetes/access/endpoints.js';
import { ClusterAccess, parseLambdaSettings } from '../../lib/config/lambda-settings.js';
import { createTelemetry } from '../../lib/observability/index.js';
import { traced } from './tracing.js';

/** A connection is renewed this long before it expires. */
const RENEW_BEFORE_MS = 2 * 60_000;

export const settings = parseLambdaSettings(process.env);
/** Logs and metrics of this function: the cluster in every line and every metric's dimensions. */
export const telemetry = createTelemetry({
  cluster: settings.cluster,
  level: process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO',
});
export const log = telemetry.log;
export const metrics = telemetry.counters;

let eks: (() => Promise<Connection>) | undefined;

const fileConnection = (path: string): Connection => ({
  endpoint: kubeconfigEndpoint(readFileSync(path, 'utf8'), { source: path, baseDir: dirname(path) }),
  expiresAt: null,
});

async function connect(): Promise<Connection> {
  const { access, region } = settings;
  switch (access.kind) {
    case ClusterAccess.KubeconfigFile:
      return fileConnection(access.path);
    case ClusterAccess.KubeconfigSecret: {
      const [{ SecretsManagerClient }, { kubeconfigSecretConnector }] = await Promise.all([
        import('@aws-sdk/client-secrets-manager'),
        import('../../lib/adapters/kubernetes/access/kubeconfig-secret.js'),
      ]);
      const client = traced(
        new SecretsManagerClient({
          region,
          maxAttempts: 3,
          requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
        }),
      );
      return kubeconfigSecretConnector({ secretArn: access.secretArn, client })();
    }
    case ClusterAccess.Eks: {
      const [{ defaultProvider }, { eksConnector }, { createEksClient, describeEksCluster }] =
        await Promise.all([
          import('@aws-sdk/credential-provider-node'),
          import('../../lib/adapters/kubernetes/access/eks-cluster.js'),
          import('../../lib/adapters/aws-eks/index.js'),
        ]);
      if (!eks) {
        const credentials = defaultProvider();
        const client = traced(createEksClient(region, { credentials }));
        const clusterName = access.eksClusterName;
        eks = eksConnector({
          clusterName,
          region,
          credentials,
          describe: () => describeEksCluster(client, clusterName),
        });
      }
      return eks();
    }
  }
}

/**
 * Keeps one value built from the current connection (the deps of a function), rebuilding it when the
 * connection is about to expire. With a kubeconfig file it is built at once, during the init phase.
 */
export function perConnection<T>(build: (connection: Connection) => T): () => Promise<T> {
  let current: { value: T; expiresAt: number | null } | undefined;
  const fresh = (c: Connection) => ({ value: build(c), expiresAt: c.expiresAt });
  if (settings.access.kind === ClusterAccess.KubeconfigFile) {
    current = fresh(fileConnection(settings.access.path));
  }
  return async () => {
    const live = current && (current.expiresAt === null || current.expiresAt - Date.now() > RENEW_BEFORE_MS);
    if (!live || !current) current = fresh(await connect());
    return current.value;
  };
}
