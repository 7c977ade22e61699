/**
 * Opt-in (`statusCheckAlarms` in a cluster's configuration): a scheduled function that keeps one EC2
 * status-check alarm per node of the cluster (functions/alarm-sync), so the event router's alarm
 * trigger has alarms to hear. Its role may write only alarms named for this cluster.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ALARM_ENV } from '../../lib/config/alarm-settings.js';
import type { FencerFunction } from './fencer-function.js';

/** The alarm names of a cluster start with this (lib/adapters/aws-cloudwatch, same shape). */
export const statusAlarmNamePrefix = (cluster: string): string => `kube-fencer-${cluster}-status-`;

export interface StatusCheckAlarmsProps {
  readonly cluster: string;
  readonly settings: { readonly everyMinutes: number; readonly evaluationMinutes: number };
  /** The alarm-sync function, made by the cluster's fencer with its defaults. */
  readonly function: FencerFunction;
  /** Where EventBridge puts a schedule tick it could not deliver. */
  readonly deadLetterQueue: sqs.IQueue;
}

/** The alarms' keeper: its schedule and its rights. */
export class StatusCheckAlarms extends Construct {
  readonly function: FencerFunction;

  constructor(scope: Construct, id: string, props: StatusCheckAlarmsProps) {
    super(scope, id);
    this.function = props.function;
    this.function.function.addEnvironment(
      ALARM_ENV.evaluationMinutes,
      String(props.settings.evaluationMinutes),
    );
    const alarms = Stack.of(this).formatArn({
      service: 'cloudwatch',
      resource: 'alarm',
      resourceName: `${statusAlarmNamePrefix(props.cluster)}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.function.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'OwnStatusAlarms',
        actions: [
          'cloudwatch:DescribeAlarms',
          'cloudwatch:PutMetricAlarm',
          'cloudwatch:DeleteAlarms',
          'cloudwatch:TagResource',
        ],
        resources: [alarms],
      }),
    );
    new events.Rule(this, 'Schedule', {
      description: `kube-fencer ${props.cluster}: status-check alarms every ${props.settings.everyMinutes} min`,
      schedule: events.Schedule.rate(Duration.minutes(props.settings.everyMinutes)),
      targets: [
        new targets.LambdaFunction(this.function.function, {
          deadLetterQueue: props.deadLetterQueue,
          retryAttempts: 4,
          maxEventAge: Duration.hours(1),
        }),
      ],
    });
  }
}
