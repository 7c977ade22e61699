/**
 * Events in the shape AWS delivers them to an EventBridge target (from the CloudWatch, AWS Health and
 * EC2 documentation samples), with our instance ids, and the project's own `Node Unreachable` event.
 */
export const INSTANCE_A = 'i-0a1b2c3d4e5f60001';
export const INSTANCE_B = 'i-0a1b2c3d4e5f60002';
export const STRANGER = 'i-0fffffffffffff999';

/** A single-metric alarm on StatusCheckFailed_System going OK → ALARM. */
export const statusCheckAlarm = (
  metric = 'StatusCheckFailed_System',
  value = 'ALARM',
  instanceId = INSTANCE_A,
) => ({
  version: '0',
  id: 'c4c1c1c9-6542-e61b-6ef0-8c4d36933a92',
  'detail-type': 'CloudWatch Alarm State Change',
  source: 'aws.cloudwatch',
  account: '123456789012',
  time: '2026-02-02T17:04:40Z',
  region: 'us-east-1',
  resources: ['arn:aws:cloudwatch:us-east-1:123456789012:alarm:node-a-system-check'],
  detail: {
    alarmName: 'node-a-system-check',
    state: {
      value,
      reason:
        'Threshold Crossed: 2 out of the last 2 datapoints [1.0 (02/02/26 17:03:00), 1.0 (02/02/26 17:02:00)] were greater than or equal to the threshold (1.0) (minimum 2 datapoints for OK -> ALARM transition).',
      reasonData:
        '{"version":"1.0","queryDate":"2026-02-02T17:04:40.985+0000","startDate":"2026-02-02T17:02:00.000+0000","statistic":"Maximum","period":60,"recentDatapoints":[1.0,1.0],"threshold":1.0,"evaluatedDatapoints":[{"timestamp":"2026-02-02T17:03:00.000+0000","sampleCount":1.0,"value":1.0}]}',
      timestamp: '2026-02-02T17:04:40.989+0000',
    },
    previousState: {
      reason:
        'Threshold Crossed: 1 out of the last 2 datapoints [0.0 (02/02/26 16:58:00)] was not greater than or equal to the threshold (1.0).',
      reasonData:
        '{"version":"1.0","queryDate":"2026-02-02T17:00:40.985+0000","statistic":"Maximum","period":60,"recentDatapoints":[0.0],"threshold":1.0}',
      timestamp: '2026-02-02T17:00:40.987+0000',
      value: 'OK',
    },
    configuration: {
      description: 'node-a failed its system status check',
      metrics: [
        {
          id: '30b6c6b2-a864-43a2-4877-c09a1afc3b87',
          metricStat: {
            metric: { dimensions: { InstanceId: instanceId }, name: metric, namespace: 'AWS/EC2' },
            period: 60,
            stat: 'Maximum',
          },
          returnData: true,
        },
      ],
    },
  },
});

/** An AWS Health issue for EC2 naming instances (`affectedEntities`). */
export const healthIssue = (instanceIds = [INSTANCE_A], category = 'issue', service = 'EC2') => ({
  version: '0',
  id: '7bf73129-1428-4cd3-a780-95db273d1602',
  'detail-type': 'AWS Health Event',
  source: 'aws.health',
  account: '123456789012',
  time: '2026-02-02T17:10:00Z',
  region: 'us-east-1',
  resources: instanceIds,
  detail: {
    eventArn:
      'arn:aws:health:us-east-1::event/EC2/AWS_EC2_INSTANCE_STORE_DRIVE_PERFORMANCE_DEGRADED/AWS_EC2_INSTANCE_STORE_DRIVE_PERFORMANCE_DEGRADED_90353408594353980',
    service,
    eventTypeCode: 'AWS_EC2_INSTANCE_STORE_DRIVE_PERFORMANCE_DEGRADED',
    eventTypeCategory: category,
    eventScopeCode: 'ACCOUNT_SPECIFIC',
    communicationId: '01b0993207d81a09dcd552ebd1e633e36cf1f09a-1',
    startTime: 'Mon, 02 Feb 2026 17:00:00 GMT',
    endTime: 'Mon, 02 Feb 2026 19:00:00 GMT',
    lastUpdatedTime: 'Mon, 02 Feb 2026 17:05:00 GMT',
    statusCode: 'open',
    eventRegion: 'us-east-1',
    eventDescription: [
      { language: 'en_US', latestDescription: 'A description of the event will be provided here' },
    ],
    affectedEntities: instanceIds.map((entityValue) => ({ entityValue, tags: {} })),
    affectedAccount: '123456789012',
  },
});

/** An EC2 instance state-change notification. */
export const ec2StateChange = (state = 'stopped', instanceId = INSTANCE_A) => ({
  version: '0',
  id: '7bf73129-1428-4cd3-a780-95db273d1602',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '123456789012',
  time: '2026-02-02T17:12:34Z',
  region: 'us-east-1',
  resources: [`arn:aws:ec2:us-east-1:123456789012:instance/${instanceId}`],
  detail: { 'instance-id': instanceId, state },
});

/** The project's own event, as EventBridge delivers it after a PutEvents. */
export const nodeUnreachable = (detail: Record<string, unknown> = { cluster: 'prod', node: 'node-a' }) => ({
  version: '0',
  id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
  'detail-type': 'Node Unreachable',
  source: 'kube-fencer',
  account: '123456789012',
  time: '2026-02-02T17:01:00Z',
  region: 'us-east-1',
  resources: [],
  detail,
});
