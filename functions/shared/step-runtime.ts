/**
 * The step function's composition: the full fencing deps (Kubernetes, the EC2 fencer and, with
 * FENCER_CEPH_* set, the Ceph RBD storage fencer), from lib/compose.ts.
 */
import { readFileSync } from 'node:fs';
import {
  CEPH_ENV,
  cephRbdSettingsFromEnv,
  type ReadSecretString,
  withCephKeyFromSecret,
} from '../../lib/adapters/ceph-rbd/index.js';
import { composeDeps } from '../../lib/compose.js';
import { ec2ComputeFencer } from '../../lib/compose-aws.js';
import { controlPlaneLabelsFromEnv } from '../../lib/config/control-plane-labels.js';
import { log, metrics, perConnection, settings } from './connection.js';
import { traced } from './tracing.js';

/** GetSecretValue with the SDK, loaded only when the deployment keeps the Ceph key in Secrets Manager. */
const readSecretString: ReadSecretString = async (secretId) => {
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = traced(
    new SecretsManagerClient({
      region: settings.region,
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
    }),
  );
  return (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
};

/**
 * The cluster's Ceph, read once at cold start: the mgr's URL, key name, the key (from the Secrets
 * Manager secret FENCER_CEPH_KEY_SECRET_ID names, or a file holding it, e.g. a mounted secret) and its
 * pinned certificate. Unset: the function fences machines only. Bad settings, or a secret that cannot
 * be read or holds no key yet, fail the cold start, loudly, rather than fencing without the storage
 * fence; Lambda tries the init again on the next invocation.
 */
const ceph = cephRbdSettingsFromEnv(
  process.env[CEPH_ENV.keySecretId]
    ? await withCephKeyFromSecret(process.env, readSecretString)
    : process.env,
  (path) => readFileSync(path, 'utf8'),
);

/** Control-plane labels of the operator's own, read once: a malformed key fails the cold start. */
const controlPlaneLabels = controlPlaneLabelsFromEnv(process.env);

/** The use cases' dependencies, with a live cluster connection. */
export const fencerDeps = perConnection(({ endpoint }) =>
  composeDeps({
    endpoint,
    computeFencers: [
      ec2ComputeFencer({
        region: settings.region,
        accountId: settings.accountId,
        traceClient: traced,
        logger: log,
      }),
    ],
    log,
    metrics,
    controlPlaneLabels,
    ...(ceph ? { ceph } : {}),
    ...(process.env.AWS_LAMBDA_FUNCTION_NAME
      ? { reportingInstance: process.env.AWS_LAMBDA_FUNCTION_NAME }
      : {}),
  }),
);
