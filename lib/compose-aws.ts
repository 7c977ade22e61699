/**
 * The EC2 compute fencer, as the AWS deployments compose it (the step function and sweep, the CLI with a
 * region): its own module, so that the deployments without AWS (Function Compute, a CLI command that
 * needs Kubernetes only) never load the EC2 SDK.
 */
import type { AwsCredentialsProvider } from './adapters/aws-ec2/credentials.js';
import { createEc2Client, Ec2ComputeFencer } from './adapters/aws-ec2/index.js';
import type { AppLogger } from './observability/index.js';

export interface Ec2FencerConfig {
  /** The AWS region the fencer serves. */
  readonly region: string;
  /** The AWS account that must own the instances; unchecked when absent. */
  readonly accountId?: string | undefined;
  /** Credentials already resolved (the CLI checks them before acting). @default the SDK's default chain */
  readonly credentials?: AwsCredentialsProvider | undefined;
  /** Wraps the SDK client, e.g. so that its calls are traced. @default none */
  readonly traceClient?: <T>(client: T) => T;
  readonly logger: AppLogger;
}

/** The EC2 fencer of one region, on a client with the project's retries and timeouts. */
export function ec2ComputeFencer(config: Ec2FencerConfig): Ec2ComputeFencer {
  const overrides = config.credentials ? { credentials: config.credentials } : {};
  const client = createEc2Client(config.region, overrides);
  return new Ec2ComputeFencer({
    region: config.region,
    accountId: config.accountId,
    client: config.traceClient ? config.traceClient(client) : client,
    logger: config.logger,
  });
}
