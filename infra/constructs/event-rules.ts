/**
 * The EventBridge rules that feed the event router, and the health check's schedule. The patterns
 * match exactly what lib/config/events.ts accepts, so the router sees few events it must reject.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  AWS_EVENTS,
  NODE_UNREACHABLE_EVENT,
  POWERED_OFF_STATES,
  STATUS_CHECK_METRICS,
} from '../../lib/config/events.js';

export interface TriggerRulesProps {
  readonly cluster: string;
  readonly router: lambda.IFunction;
  readonly healthCheck: lambda.IFunction;
  readonly sweep: lambda.IFunction;
  readonly sweepEveryMinutes: number;
  readonly everyMinutes: number;
  readonly deadLetterQueue: sqs.IQueue;
}

/** The event patterns, by rule id. */
export function triggerPatterns(cluster: string): Record<string, events.EventPattern> {
  return {
    StatusCheckAlarm: {
      source: [AWS_EVENTS.alarm.source],
      detailType: [AWS_EVENTS.alarm.detailType],
      detail: {
        state: { value: ['ALARM'] },
        configuration: {
          metrics: { metricStat: { metric: { namespace: ['AWS/EC2'], name: [...STATUS_CHECK_METRICS] } } },
        },
      },
    },
    Ec2HealthIssue: {
      source: [AWS_EVENTS.health.source],
      detailType: [AWS_EVENTS.health.detailType],
      detail: { service: ['EC2'], eventTypeCategory: ['issue'] },
    },
    InstancePoweredOff: {
      source: [AWS_EVENTS.ec2State.source],
      detailType: [AWS_EVENTS.ec2State.detailType],
      detail: { state: [...POWERED_OFF_STATES] },
    },
    NodeUnreachable: {
      source: [NODE_UNREACHABLE_EVENT.source],
      detailType: [NODE_UNREACHABLE_EVENT.detailType],
      detail: { cluster: [cluster] },
    },
  };
}

/** Creates the rules and the schedule. Undeliverable events go to the dead-letter queue. */
export function triggerRules(scope: Construct, props: TriggerRulesProps): void {
  const target = (fn: lambda.IFunction) =>
    new targets.LambdaFunction(fn, {
      deadLetterQueue: props.deadLetterQueue,
      retryAttempts: 4,
      maxEventAge: Duration.hours(1),
    });
  for (const [id, eventPattern] of Object.entries(triggerPatterns(props.cluster))) {
    new events.Rule(scope, id, {
      description: `kube-fencer ${props.cluster}: ${id} → event router`,
      eventPattern,
      targets: [target(props.router)],
    });
  }
  new events.Rule(scope, 'HealthCheckSchedule', {
    description: `kube-fencer ${props.cluster}: health check every ${props.everyMinutes} min`,
    schedule: events.Schedule.rate(Duration.minutes(props.everyMinutes)),
    targets: [target(props.healthCheck)],
  });
  new events.Rule(scope, 'SweepSchedule', {
    description: `kube-fencer ${props.cluster}: sweep every ${props.sweepEveryMinutes} min`,
    schedule: events.Schedule.rate(Duration.minutes(props.sweepEveryMinutes)),
    targets: [target(props.sweep)],
  });
}
