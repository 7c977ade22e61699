/**
 * The AWS events the router parses, in every shape AWS documents (fixtures/aws-samples.ts names the
 * page each follows): optional fields may be missing, lists may be as long as the service allows.
 */
import { describe, expect, it } from 'vitest';
import { RejectReason } from '../../../lib/app/triggers/trigger-types.js';
import { MAX_ALARM_METRICS, parseEvent } from '../../../lib/config/events.js';
import {
  ALARM_INSTANCES,
  ec2StateChangeWithoutVersion,
  healthIssueWithEntityWithoutValue,
  healthIssueWithoutResources,
  INSTANCE,
  statusCheckMathAlarmOf20Metrics,
} from './fixtures/aws-samples.js';

describe('AWS events as AWS documents them', () => {
  it('takes an EC2 state-change notification without `version` (EC2’s own sample)', () => {
    expect(parseEvent(ec2StateChangeWithoutVersion)).toMatchObject({
      kind: 'instances',
      instanceIds: [INSTANCE],
      requireVolumeAttachments: true,
    });
  });

  it('takes an AWS Health issue without `resources` (documented "Required: No")', () => {
    expect(parseEvent(healthIssueWithoutResources)).toMatchObject({
      kind: 'instances',
      instanceIds: [INSTANCE],
    });
  });

  it('takes a Health issue with an affected entity that has no value, and fences the one that names an instance', () => {
    expect(parseEvent(healthIssueWithEntityWithoutValue)).toMatchObject({
      kind: 'instances',
      instanceIds: [INSTANCE],
    });
  });

  it('takes a metric-math status-check alarm with the 20 metrics CloudWatch allows', () => {
    expect(statusCheckMathAlarmOf20Metrics.detail.configuration.metrics).toHaveLength(MAX_ALARM_METRICS);
    const trigger = parseEvent(statusCheckMathAlarmOf20Metrics);
    expect(trigger).toMatchObject({ kind: 'instances' });
    expect(trigger.kind === 'instances' && [...trigger.instanceIds].sort()).toEqual(
      [...ALARM_INSTANCES].sort(),
    );
  });

  it('does not take an alarm on StatusCheckFailed_AttachedEBS for a status check of the instance', () => {
    const [first] = statusCheckMathAlarmOf20Metrics.detail.configuration.metrics;
    const stat = (first as { metricStat: { metric: { name: string } } }).metricStat;
    const ebs = {
      ...statusCheckMathAlarmOf20Metrics,
      detail: {
        ...statusCheckMathAlarmOf20Metrics.detail,
        configuration: {
          metrics: [
            {
              ...first,
              metricStat: { ...stat, metric: { ...stat.metric, name: 'StatusCheckFailed_AttachedEBS' } },
            },
          ],
        },
      },
    };
    expect(parseEvent(ebs)).toMatchObject({ kind: 'rejected', reason: RejectReason.NotStatusCheckAlarm });
  });

  it('still rejects an alarm with more metrics than CloudWatch allows, as malformed', () => {
    const { metrics } = statusCheckMathAlarmOf20Metrics.detail.configuration;
    const tooMany = {
      ...statusCheckMathAlarmOf20Metrics,
      detail: {
        ...statusCheckMathAlarmOf20Metrics.detail,
        configuration: { metrics: [...metrics, { id: 'extra', expression: 'm1', returnData: false }] },
      },
    };
    expect(parseEvent(tooMany)).toMatchObject({ kind: 'rejected', reason: RejectReason.MalformedEvent });
  });

  it('still rejects an EC2 state change without the instance it is about', () => {
    const { 'instance-id': _, ...detail } = ec2StateChangeWithoutVersion.detail;
    expect(parseEvent({ ...ec2StateChangeWithoutVersion, detail })).toMatchObject({
      kind: 'rejected',
      reason: RejectReason.MalformedEvent,
    });
  });
});
