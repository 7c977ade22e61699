/** The step function's composition: the full fencing deps (Kubernetes and the EC2 fencer), from lib/compose.ts. */
import { composeDeps } from '../../lib/compose.js';
import { log, metrics, perConnection, settings } from './connection.js';

/** The use cases' dependencies, with a live cluster connection. */
export const fencerDeps = perConnection(({ endpoint }) =>
  composeDeps({
    endpoint,
    region: settings.region,
    accountId: settings.accountId,
    log,
    metrics,
    ...(process.env.AWS_LAMBDA_FUNCTION_NAME
      ? { reportingInstance: process.env.AWS_LAMBDA_FUNCTION_NAME }
      : {}),
  }),
);
