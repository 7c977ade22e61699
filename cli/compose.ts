import { readFileSync } from 'node:fs';
import type { EcsComputeFencer } from '../lib/adapters/alicloud-ecs/index.js';
import type { AwsCredentialsProvider } from '../lib/adapters/aws-ec2/credentials.js';
import {
  cephNetworkFenceSettingsFromEnv,
  cephRbdSettingsFromEnv,
} from '../lib/adapters/ceph-rbd/settings.js';
import type { ApiEndpoint } from '../lib/adapters/kubernetes/api/endpoint.js';
import { type ComposedDeps, composeDeps } from '../lib/compose.js';
import { parseAlibabaSettings } from '../lib/config/alibaba-settings.js';
import { controlPlaneLabelsFromEnv } from '../lib/config/control-plane-labels.js';
import { CredentialsError } from '../lib/domain/access-errors.js';
import { createLogger } from '../lib/observability/index.js';
import type { ConnectionOptions } from './options.js';
import { requireOption } from './usage.js';

export { requireOption, UsageError } from './usage.js';

/** What cli/access.ts checked before the command acts: the API server to use, and the cloud's credentials. */
export interface CheckedAccess {
  readonly endpoint: ApiEndpoint;
  readonly awsCredentials?: AwsCredentialsProvider;
  /** The Alibaba Cloud fencer, built while its credentials were checked (ALIBABA_CLOUD_REGION set). */
  readonly alibabaFencer?: EcsComputeFencer | undefined;
}

/**
 * The Alibaba Cloud fencer's configuration from the environment: `ALIBABA_CLOUD_REGION` turns it on;
 * the SDK reads no credentials by itself, so `ALIBABA_CLOUD_ACCESS_KEY_ID/SECRET` (and
 * `ALIBABA_CLOUD_SECURITY_TOKEN` for STS) must be set with it. The ECS SDK (a few MB of models) is
 * loaded only then: every other command starts without it.
 */
export async function alibabaFencerFromEnv(env: NodeJS.ProcessEnv): Promise<EcsComputeFencer | undefined> {
  const settings = parseAlibabaSettings(env);
  if (!settings) return undefined;
  const { EcsComputeFencer, ecsCredentialsFromEnv } = await import('../lib/adapters/alicloud-ecs/index.js');
  let credentials: ReturnType<typeof ecsCredentialsFromEnv>;
  try {
    credentials = ecsCredentialsFromEnv(env);
  } catch (error) {
    throw new CredentialsError('alibaba', (error as Error).message, { cause: error });
  }
  if (!credentials) {
    throw new CredentialsError(
      'alibaba',
      'ALIBABA_CLOUD_REGION is set but there are no Alibaba Cloud credentials: set ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET (and ALIBABA_CLOUD_SECURITY_TOKEN for STS)',
    );
  }
  return new EcsComputeFencer({ ...settings, credentials });
}

/**
 * The CLI's composition root, on lib/compose.ts: what cli/access.ts checked (the API server, the cloud's
 * credentials) becomes a command's dependencies. A command that needs Kubernetes only gets no compute
 * fencer and loads no cloud SDK; one that acts on machines gets the EC2 fencer of `--region` (its SDK
 * loaded only then) and the Alibaba ECS fencer when `ALIBABA_CLOUD_REGION` is set.
 */
export async function composeCliDeps(
  options: ConnectionOptions,
  access: CheckedAccess,
  cloud: boolean,
): Promise<ComposedDeps> {
  const log = createLogger({ silent: !options.logJson, stderr: true });
  if (!cloud) return composeDeps({ endpoint: access.endpoint, log });
  const alibaba = access.alibabaFencer;
  // An Alibaba-only deployment needs no AWS region; every other needs one.
  const region = alibaba
    ? options.region || undefined
    : requireOption(
        options.region,
        '--region',
        'or set AWS_REGION; for Alibaba Cloud set ALIBABA_CLOUD_REGION',
      );
  const aws = region
    ? (await import('../lib/compose-aws.js')).ec2ComputeFencer({
        region,
        accountId: options.accountId,
        credentials: access.awsCredentials,
        logger: log,
      })
    : undefined;
  return composeDeps({
    endpoint: access.endpoint,
    computeFencers: [...(aws ? [aws] : []), ...(alibaba ? [alibaba] : [])],
    cephNetworkFence: cephNetworkFenceSettingsFromEnv(process.env),
    ceph: cephRbdSettingsFromEnv(process.env, (path) => readFileSync(path, 'utf8')),
    log,
    ...(options.chunkSize ? { pageSize: options.chunkSize } : {}),
    controlPlaneLabels: controlPlaneLabelsFromEnv(process.env),
  });
}
