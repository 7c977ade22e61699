/**
 * The triggers' composition (event router, health check, manual invoke): Kubernetes reads, providerID
 * parsing and Step Functions. No EC2 client: a trigger only maps instances to nodes and starts runs,
 * which keeps these bundles and their cold starts small.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { SFN_CLIENT_DEFAULTS, SfnWorkflow } from '../../lib/adapters/aws-sfn/index.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/index.js';
import type { TriggerDeps, TriggerSettings } from '../../lib/app/triggers/index.js';
import { NodeIndex } from '../../lib/app/triggers/node-index.js';
import { log, metrics, perConnection, settings } from './connection.js';
import { providerIdReaders } from './provider-ids.js';
import { traced } from './tracing.js';

export { settings };

/** What the triggers fill into every request. */
export const triggerSettings: TriggerSettings = {
  cluster: settings.cluster,
  requestDefaults: settings.requestDefaults,
  maxRunsPerEvent: settings.maxRunsPerEvent,
};

if (!settings.stateMachineArn)
  throw new Error('FENCER_STATE_MACHINE_ARN is not set: a trigger cannot start runs');
const workflow = new SfnWorkflow({
  stateMachineArn: settings.stateMachineArn,
  client: traced(new SFNClient({ ...SFN_CLIENT_DEFAULTS, region: settings.region })),
});
/** Kept for the life of the container (see lib/app/triggers/node-index.ts). */
const nodeIndex = new NodeIndex();

/** The triggers' dependencies, with a live cluster connection. */
export const triggerDeps = perConnection(
  ({ endpoint }): TriggerDeps => ({
    cluster: new KubeCluster(endpoint, { logger: log }),
    compute: providerIdReaders,
    workflow,
    clock: { now: () => new Date() },
    log,
    metrics,
    nodeIndex,
  }),
);
