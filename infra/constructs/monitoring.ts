/**
 * Alarms for what needs a human (failed fencings, refusals, volumes that did not move, runs the
 * workflow itself lost, events that could not be delivered) and one dashboard. The metrics are the
 * ones lib/observability publishes: namespace `KubeFencer`, `FencingRuns` by outcome, `FencingReasons`
 * by reason, each with Powertools' `service` dimension.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { Reason } from '../../lib/domain/reasons.js';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../lib/observability/index.js';
import type { ClusterFencer } from './cluster-fencer.js';

export interface MonitoringProps {
  readonly topic: sns.ITopic;
  readonly fencers: readonly ClusterFencer[];
  readonly deadLetterQueue: sqs.IQueue;
}

const PERIOD = Duration.minutes(5);

/** A fencer metric, summed over 5 minutes. */
export const fencerMetric = (name: string, dimensions: Record<string, string>, label?: string) =>
  new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME, ...dimensions },
    statistic: cloudwatch.Stats.SUM,
    period: PERIOD,
    label,
  });

/** Alarms on the fencer's metrics and the workflow's, and a dashboard. */
export class Monitoring extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const alarm = (name: string, metric: cloudwatch.IMetric, description: string) => {
      const a = new cloudwatch.Alarm(this, name, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `${description} See RUNBOOK.md.`,
      });
      a.addAlarmAction(new actions.SnsAction(props.topic));
      this.alarms.push(a);
      return a;
    };
    alarm('FailedFencings', fencerMetric('FencingRuns', { outcome: 'failed' }), 'A fencing run failed.');
    alarm('Refusals', fencerMetric('FencingRuns', { outcome: 'refused' }), 'A fencing run was refused.');
    alarm(
      'StuckVolumeAttachments',
      fencerMetric('FencingReasons', { reason: Reason.DrainNotComplete }),
      'A fenced node kept its pods, VolumeAttachments or disks past the drain deadline.',
    );
    alarm(
      'TooManyUnhealthy',
      fencerMetric('FencingReasons', { reason: Reason.TooManyUnhealthy }),
      'Fencing stood down: too many nodes are unhealthy at once.',
    );
    alarm(
      'UndeliveredEvents',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: PERIOD }),
      'EventBridge could not deliver a trigger to a fencer function.',
    );
    for (const fencer of props.fencers) {
      const sm = fencer.workflow.stateMachine;
      const name = fencer.node.id;
      alarm(
        `${name}RunsTimedOut`,
        sm.metricTimedOut({ period: PERIOD }),
        `A ${name} fencing run hit the workflow timeout.`,
      );
      alarm(
        `${name}RunsFailed`,
        sm.metricFailed({ period: PERIOD }),
        `A ${name} fencing run ended FAILED (refused, failed, or a step that kept failing); the SNS message says which.`,
      );
      alarm(
        `${name}RouterErrors`,
        fencer.router.function.metricErrors({ period: PERIOD }),
        `The ${name} event router failed.`,
      );
      alarm(
        `${name}HealthCheckErrors`,
        fencer.healthCheck.function.metricErrors({ period: PERIOD }),
        `The ${name} health check failed.`,
      );
      alarm(
        `${name}SweepErrors`,
        fencer.sweep.function.metricErrors({ period: PERIOD }),
        `The ${name} sweep failed.`,
      );
    }
    this.dashboard(props);
  }

  private dashboard(props: MonitoringProps): void {
    const outcomes = ['fenced', 'refused', 'failed', 'dry-run'];
    const reasons = [
      Reason.TooManyUnhealthy,
      Reason.TooManyInFlight,
      Reason.PowerOffNotConfirmed,
      Reason.DrainNotComplete,
      Reason.NodeReady,
      Reason.LeaseFresh,
    ];
    const triggers = ['RunsStarted', 'TriggersDuplicate', 'TriggersRejected'];
    const board = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.days(7) });
    board.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Fencing runs by outcome',
        left: outcomes.map((o) => fencerMetric('FencingRuns', { outcome: o }, o)),
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Refusal and failure reasons',
        left: reasons.map((r) => fencerMetric('FencingReasons', { reason: r }, r)),
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Triggers',
        left: triggers.map(
          (t) =>
            new cloudwatch.MathExpression({
              expression: `SUM(SEARCH('{${METRICS_NAMESPACE}} MetricName="${t}"', 'Sum', 300))`,
              label: t,
              period: PERIOD,
            }),
        ),
        width: 12,
      }),
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 12 }),
    );
    for (const fencer of props.fencers) {
      const sm = fencer.workflow.stateMachine;
      board.addWidgets(
        new cloudwatch.GraphWidget({
          title: `${fencer.node.id}: workflow`,
          left: [sm.metricStarted(), sm.metricSucceeded(), sm.metricFailed(), sm.metricTimedOut()],
          width: 12,
        }),
        new cloudwatch.GraphWidget({
          title: `${fencer.node.id}: functions (p99 ms)`,
          left: [fencer.step, fencer.router, fencer.healthCheck, fencer.manual, fencer.sweep].map((f) =>
            f.function.metricDuration({ statistic: 'p99', label: f.node.id }),
          ),
          width: 12,
        }),
      );
    }
  }
}
