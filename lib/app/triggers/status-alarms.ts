/**
 * Keeps one EC2 status-check alarm per node of the cluster: the trigger the event router was built
 * for, which nothing else creates. Nodes come and go (autoscaling, upgrades), so each run compares the
 * nodes' instances with the alarms that exist, creates what is missing and deletes what no node needs.
 */
import type { AuditLog, Metrics } from '../../ports/audit.js';
import type { NodeReads } from '../../ports/cluster.js';
import type { StatusAlarms } from '../../ports/status-alarms.js';
import { mapBounded } from '../shared/bounded.js';
import { instanceOf } from './node-index.js';
import type { ProviderIdReaders } from './trigger-types.js';

/** Alarm writes in flight at once: CloudWatch's PutMetricAlarm allows a few per second. */
const WRITES_IN_FLIGHT = 3;
/** Alarms created per run at most; a new cluster of thousands of nodes is covered over a few runs. */
export const MAX_CREATES_PER_SYNC = 150;

export interface StatusAlarmDeps {
  readonly cluster: Pick<NodeReads, 'listNodes'>;
  readonly compute: ProviderIdReaders;
  readonly alarms: StatusAlarms;
  readonly log: AuditLog;
  readonly metrics: Metrics;
  /** The region the alarms live in: a node whose zone is in another region cannot be watched from here. */
  readonly region?: string;
}

export interface StatusAlarmReport {
  readonly nodes: number;
  /** Nodes whose providerID names no EC2 instance this deployment can watch. */
  readonly unwatchable: number;
  readonly created: readonly string[];
  readonly removed: readonly string[];
  /** Instances still without an alarm, left for the next run. */
  readonly pending: number;
}

/** One reconciliation of the alarms with the nodes. */
export async function syncStatusAlarms(deps: StatusAlarmDeps): Promise<StatusAlarmReport> {
  const [nodes, existing] = await Promise.all([deps.cluster.listNodes(), deps.alarms.listInstances()]);
  const wanted = new Set<string>();
  let unwatchable = 0;
  for (const node of nodes) {
    const instanceId = instanceOf(deps, node);
    const zone = node.providerId?.match(/^aws:\/\/\/([^/]+)\//)?.[1];
    const elsewhere = deps.region !== undefined && zone !== undefined && !zone.startsWith(deps.region);
    if (instanceId === null || elsewhere) unwatchable++;
    else wanted.add(instanceId);
  }
  const have = new Set(existing);
  const missing = [...wanted].filter((id) => !have.has(id)).sort();
  const created = missing.slice(0, MAX_CREATES_PER_SYNC);
  const removed = existing.filter((id) => !wanted.has(id));
  await mapBounded(created, WRITES_IN_FLIGHT, (id) => deps.alarms.put(id));
  if (removed.length > 0) await deps.alarms.remove(removed);

  const report = {
    nodes: nodes.length,
    unwatchable,
    created,
    removed,
    pending: missing.length - created.length,
  };
  if (deps.metrics.gauge) {
    deps.metrics.gauge('StatusAlarmsCreated', created.length);
    deps.metrics.gauge('StatusAlarmsRemoved', removed.length);
  }
  deps.log.info('status-check alarms in step with the nodes', {
    ...report,
    created: created.slice(0, 20),
    removed: removed.slice(0, 20),
  });
  return report;
}
