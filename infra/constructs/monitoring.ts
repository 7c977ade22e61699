/**
 * Alarms for what needs a human and one dashboard. Failures, refusals and fencings are told apart:
 * a failure (`<cluster>-FailedFencings`, `<cluster>-RunsFailed`) means the fencer could not do its job;
 * a refusal (`<cluster>-Refusals`) means a safety rule said no, which is usually right; a fencing is
 * no alarm at all, only an outcome notification. The metrics are the ones lib/observability publishes:
 * namespace `KubeFencer`, dimensions `service` and `cluster` on every one (`FencingRuns` by outcome,
 * `FencingReasons` by reason, the functions' own counts).
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_CAP_REASON } from '../../lib/config/events.js';
import { Reason } from '../../lib/domain/reasons.js';
import { CLUSTER_DIMENSION, METRICS_NAMESPACE, SERVICE_NAME } from '../../lib/observability/index.js';
import type { ClusterFencer } from './cluster-fencer.js';

export interface MonitoringProps {
  readonly topic: sns.ITopic;
  readonly fencers: readonly ClusterFencer[];
  /** Events EventBridge could not deliver. */
  readonly deadLetterQueue: sqs.IQueue;
  /** Asynchronous invocations that failed after Lambda's retries. */
  readonly failedInvocations: sqs.IQueue;
}

const PERIOD = Duration.minutes(5);

/** A fencer metric of one cluster, summed over 5 minutes. */
export const fencerMetric = (
  name: string,
  cluster: string,
  dimensions: Record<string, string> = {},
  label?: string,
) =>
  new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME, [CLUSTER_DIMENSION]: cluster, ...dimensions },
    statistic: cloudwatch.Stats.SUM,
    period: PERIOD,
    label,
  });

interface AlarmSpec {
  readonly metric: cloudwatch.IMetric;
  readonly description: string;
  /** @default at least 1 in one period */
  readonly below?: boolean;
  readonly evaluationPeriods?: number;
}

/** Alarms on the fencer's metrics, the workflow's and the queues', and a dashboard. */
export class Monitoring extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly #topic: sns.ITopic;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.#topic = props.topic;
    this.alarm('UndeliveredEvents', {
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: PERIOD }),
      description:
        'FAILURE: EventBridge could not deliver a trigger to a fencer function (queue UndeliveredTriggers).',
    });
    this.alarm('FailedInvocations', {
      metric: props.failedInvocations.metricApproximateNumberOfMessagesVisible({ period: PERIOD }),
      description:
        'FAILURE: a fencer function failed an event after all of Lambda’s retries; the event and the error are in queue FailedInvocations.',
    });
    for (const fencer of props.fencers) this.clusterAlarms(fencer);
    this.dashboard(props);
  }

  private alarm(name: string, spec: AlarmSpec): cloudwatch.Alarm {
    const a = new cloudwatch.Alarm(this, name, {
      alarmName: `${Stack.of(this).stackName}-${name}`,
      metric: spec.metric,
      threshold: 1,
      evaluationPeriods: spec.evaluationPeriods ?? 1,
      comparisonOperator: spec.below
        ? cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD
        : cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // A heartbeat that stops is the failure itself; a count that stays at zero is good news.
      treatMissingData: spec.below
        ? cloudwatch.TreatMissingData.BREACHING
        : cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: `${spec.description} See RUNBOOK.md.`,
    });
    a.addAlarmAction(new actions.SnsAction(this.#topic));
    this.alarms.push(a);
    return a;
  }

  private clusterAlarms(fencer: ClusterFencer): void {
    const c = fencer.cluster;
    const m = (name: string, dims: Record<string, string> = {}) => fencerMetric(name, c, dims);
    const sm = fencer.workflow.stateMachine;
    const alarms: Record<string, AlarmSpec> = {
      FailedFencings: {
        metric: m('FencingRuns', { outcome: 'failed' }),
        description: `FAILURE: a ${c} fencing run ended failed (the instance was not proven off, or its volumes did not move).`,
      },
      Refusals: {
        metric: m('FencingRuns', { outcome: 'refused' }),
        description: `REFUSAL: a ${c} fencing run was refused by a safety rule; usually correct, read the reason.`,
      },
      StuckVolumeAttachments: {
        metric: m('FencingReasons', { reason: Reason.DrainNotComplete }),
        description: `FAILURE: a fenced ${c} node kept its pods, VolumeAttachments or disks past the drain deadline.`,
      },
      TooManyUnhealthy: {
        metric: m('FencingReasons', { reason: Reason.TooManyUnhealthy }),
        description: `REFUSAL: ${c} fencing stood down, too many nodes are unhealthy at once (likely a partition).`,
      },
      TooManyNodesInEvent: {
        metric: m('FencingReasons', { reason: EVENT_CAP_REASON }),
        description: `REFUSAL: one event named more ${c} nodes than one event may fence; the rest were not started.`,
      },
      SweepCrossCheckFailed: {
        metric: m('SweepCrossCheckFailures'),
        description: `FAILURE: a ${c} sweep could not cross-check findings with the provider (throttled, unreachable or out of budget); its findings are unproven.`,
      },
      StorageFenceAtRisk: {
        metric: m('StorageFencesAtRisk'),
        description: `FAILURE: a ${c} sweep found a fenced node whose recorded Ceph blocklist entries are gone or could not be lengthened; its old client may reach Ceph again.`,
      },
      RunStartsFailed: {
        metric: m('RunStartsFailed'),
        description: `FAILURE: a ${c} trigger could not start a run (Step Functions unreachable, throttled or denied).`,
      },
      RunsFailed: {
        metric: sm.metricFailed({ period: PERIOD }),
        description: `FAILURE: a ${c} workflow run failed (a step kept failing, or the run failed); refusals end as successes.`,
      },
      RunsTimedOut: {
        metric: sm.metricTimedOut({ period: PERIOD }),
        description: `FAILURE: a ${c} fencing run hit the workflow timeout.`,
      },
      HealthCheckNotRunning: {
        metric: m('HealthChecks'),
        below: true,
        evaluationPeriods: 3,
        description: `FAILURE: the ${c} health check has not completed for 15 minutes (throttled, failing or its schedule gone).`,
      },
    };
    for (const [name, fn] of Object.entries({
      RouterErrors: fencer.router,
      HealthCheckErrors: fencer.healthCheck,
      SweepErrors: fencer.sweep,
      ...(fencer.statusCheckAlarms ? { AlarmSyncErrors: fencer.statusCheckAlarms.function } : {}),
    })) {
      alarms[name] = {
        metric: fn.function.metricErrors({ period: PERIOD }),
        description: `FAILURE: the ${c} ${fn.node.id} function failed (cluster access, permissions, or a bug).`,
      };
    }
    for (const [name, spec] of Object.entries(alarms)) this.alarm(`${c}-${name}`, spec);
  }

  private dashboard(props: MonitoringProps): void {
    const board = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.days(7) });
    board.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    const reasons = [
      Reason.TooManyUnhealthy,
      Reason.TooManyInFlight,
      Reason.PowerOffNotConfirmed,
      Reason.DrainNotComplete,
      Reason.NodeReady,
      Reason.LeaseFresh,
    ];
    for (const fencer of props.fencers) {
      const c = fencer.cluster;
      const sm = fencer.workflow.stateMachine;
      board.addWidgets(
        new cloudwatch.GraphWidget({
          title: `${c}: fencing runs by outcome`,
          left: ['fenced', 'refused', 'failed', 'dry-run'].map((o) =>
            fencerMetric('FencingRuns', c, { outcome: o }, o),
          ),
          width: 12,
        }),
        new cloudwatch.GraphWidget({
          title: `${c}: refusal and failure reasons`,
          left: reasons.map((r) => fencerMetric('FencingReasons', c, { reason: r }, r)),
          width: 12,
        }),
        new cloudwatch.GraphWidget({
          title: `${c}: triggers`,
          left: [
            fencerMetric('EventsRouted', c, {}, 'events routed'),
            // Counted by source: the dashboard sums them (an alarm could not).
            new cloudwatch.MathExpression({
              expression: `SUM(SEARCH('{${METRICS_NAMESPACE},${CLUSTER_DIMENSION},service,source} MetricName="RunsStarted" ${CLUSTER_DIMENSION}="${c}"', 'Sum', 300))`,
              label: 'runs started',
              period: PERIOD,
            }),
            fencerMetric('RunStartsFailed', c, {}, 'starts failed'),
            fencerMetric('HealthChecks', c, {}, 'health checks'),
          ],
          width: 12,
        }),
        new cloudwatch.GraphWidget({
          title: `${c}: workflow`,
          left: [sm.metricStarted(), sm.metricSucceeded(), sm.metricFailed(), sm.metricTimedOut()],
          width: 12,
        }),
        new cloudwatch.GraphWidget({
          title: `${c}: functions (p99 ms)`,
          left: fencer.functions.map((f) =>
            f.function.metricDuration({ statistic: 'p99', label: f.node.id }),
          ),
          width: 24,
        }),
      );
    }
  }
}
