/**
 * The step function's composition: the full fencing deps (Kubernetes, the EC2 fencer and, with
 * FENCER_CEPH_* set, the Ceph RBD storage fencer), from lib/compose.ts.
 */
import { readFileSync } from 'node:fs';
import { cephRbdSettingsFromEnv } from '../../lib/adapters/ceph-rbd/index.js';
import { composeDeps } from '../../lib/compose.js';
import { log, metrics, perConnection, settings } from './connection.js';

/**
 * The cluster's Ceph, read once at cold start: the mgr's URL, key name, the key (or a file holding it,
 * e.g. a mounted secret) and its pinned certificate. Unset: the function fences machines only. Bad
 * settings fail the cold start, loudly, rather than fencing without the storage fence.
 */
const ceph = cephRbdSettingsFromEnv(process.env, (path) => readFileSync(path, 'utf8'));

/** The use cases' dependencies, with a live cluster connection. */
export const fencerDeps = perConnection(({ endpoint }) =>
  composeDeps({
    endpoint,
    region: settings.region,
    accountId: settings.accountId,
    log,
    metrics,
    ...(ceph ? { ceph } : {}),
    ...(process.env.AWS_LAMBDA_FUNCTION_NAME
      ? { reportingInstance: process.env.AWS_LAMBDA_FUNCTION_NAME }
      : {}),
  }),
);
