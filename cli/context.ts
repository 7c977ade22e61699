import type { AwsCredentialsProvider } from '../lib/adapters/aws-ec2/credentials.js';
import type { ApiEndpoint } from '../lib/adapters/kubernetes/api/endpoint.js';
import type { FencerDeps } from '../lib/app/deps.js';
import { composeDeps } from '../lib/compose.js';
import { createLogger } from '../lib/observability/index.js';
import type { ConnectionOptions } from './options.js';
import { requireOption } from './usage.js';

export { requireOption, UsageError } from './usage.js';

/** What cli/access.ts checked before the command acts: the API server to use, and the cloud's credentials. */
export interface CheckedAccess {
  readonly endpoint: ApiEndpoint;
  readonly awsCredentials?: AwsCredentialsProvider;
}

/** Builds the fencer's dependencies from the command line (the CLI's composition). */
export function depsFromOptions(options: ConnectionOptions, access: CheckedAccess): FencerDeps {
  const region = requireOption(options.region, '--region', 'or set AWS_REGION');
  return composeDeps({
    endpoint: access.endpoint,
    region,
    accountId: options.accountId,
    awsCredentials: access.awsCredentials,
    log: createLogger({ silent: !options.logJson }),
  });
}
