/**
 * The status-check alarms function's composition: Kubernetes reads (the nodes), providerID parsing
 * and CloudWatch alarms. No EC2 or Step Functions client.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchStatusAlarms } from '../../lib/adapters/aws-cloudwatch/index.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/index.js';
import type { StatusAlarmDeps } from '../../lib/app/triggers/status-alarms.js';
import { parseEvaluationMinutes } from '../../lib/config/alarm-settings.js';
import { log, metrics, perConnection, settings } from './connection.js';
import { providerIdReaders } from './provider-ids.js';
import { traced } from './tracing.js';

const alarms = new CloudWatchStatusAlarms({
  client: traced(
    new CloudWatchClient({
      region: settings.region,
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
    }),
  ),
  cluster: settings.cluster,
  evaluationMinutes: parseEvaluationMinutes(process.env),
});

/** The function's dependencies, with a live cluster connection. */
export const alarmDeps = perConnection(
  ({ endpoint }): StatusAlarmDeps => ({
    cluster: new KubeCluster(endpoint, { logger: log }),
    compute: providerIdReaders,
    alarms,
    log,
    metrics,
    region: settings.region,
  }),
);
