/**
 * The composition root: the only module that builds SDK clients and adapters and hands them to the
 * use cases. The CLI and every Lambda handler start here.
 */
import type { AwsCredentialsProvider } from './adapters/aws-ec2/credentials.js';
import { createEc2Client, Ec2ComputeFencer } from './adapters/aws-ec2/index.js';
import type { ApiEndpoint } from './adapters/kubernetes/api/endpoint.js';
import { KubeCluster } from './adapters/kubernetes/index.js';
import type { FencerDeps } from './app/deps.js';
import { type AppLogger, createLogger, InMemoryMetrics } from './observability/index.js';
import type { Metrics } from './ports/audit.js';
import type { ComputeFencer } from './ports/compute-fencer.js';
import type { ComputeProviders } from './ports/compute-providers.js';

export interface FencerConfig {
  /** The API server and its credentials (from a kubeconfig, Secrets Manager, or an EKS token). */
  readonly endpoint: ApiEndpoint;
  /** The AWS region the EC2 fencer serves. */
  readonly region: string;
  /** The AWS account that must own the instances; unchecked when absent. */
  readonly accountId?: string;
  /** AWS credentials already resolved (the CLI checks them before acting). @default the SDK's default chain */
  readonly awsCredentials?: AwsCredentialsProvider;
  /** The use cases' log; the adapters log through it too (a failed Event write, a power-off request). */
  readonly log?: AppLogger;
  readonly metrics?: Metrics;
  /** Who writes the Kubernetes Events, e.g. the Lambda function's name. @default the host name */
  readonly reportingInstance?: string;
}

/** Routes a providerID to the compute fencer that owns it. */
export class ProviderRegistry implements ComputeProviders {
  constructor(private readonly byScheme: ReadonlyMap<string, ComputeFencer>) {}

  forProviderId(providerId: string): ComputeFencer | null {
    // A bare EC2 instance id is how some installers set providerID on AWS.
    if (/^i-[0-9a-f]+$/.test(providerId)) return this.byScheme.get('aws') ?? null;
    const scheme = /^([a-z0-9-]+):\/\//.exec(providerId)?.[1];
    return scheme ? (this.byScheme.get(scheme) ?? null) : null;
  }
}

/** Builds the use cases' dependencies from configuration. */
export function composeDeps(config: FencerConfig): FencerDeps {
  const log = config.log ?? createLogger();
  const credentials = config.awsCredentials ? { credentials: config.awsCredentials } : {};
  const ec2 = new Ec2ComputeFencer({
    region: config.region,
    accountId: config.accountId,
    client: createEc2Client(config.region, credentials),
    logger: log,
  });
  return {
    cluster: new KubeCluster(config.endpoint, {
      logger: log,
      ...(config.reportingInstance ? { reportingInstance: config.reportingInstance } : {}),
    }),
    compute: new ProviderRegistry(new Map<string, ComputeFencer>([['aws', ec2]])),
    clock: { now: () => new Date() },
    log,
    metrics: config.metrics ?? new InMemoryMetrics(),
  };
}
