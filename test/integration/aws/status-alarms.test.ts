/**
 * The status-check alarms against the EC2 emulator's CloudWatch (moto server, real HTTP, real SDK):
 * one alarm per node's instance, created as the router needs it, the alarms of nodes that left
 * deleted, and nobody else's alarm touched. The nodes are a fake of our Cluster port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CloudWatchClient,
  DescribeAlarmsCommand,
  ListTagsForResourceCommand,
  PutMetricAlarmCommand,
} from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerIdReaders } from '../../../functions/shared/provider-ids.js';
import { type Ec2Emulator, startEc2Emulator } from '../../../lab/ec2-emulator.js';
import { CloudWatchStatusAlarms, statusAlarmPrefix } from '../../../lib/adapters/aws-cloudwatch/index.js';
import { type StatusAlarmDeps, syncStatusAlarms } from '../../../lib/app/triggers/status-alarms.js';
import { InMemoryMetrics } from '../../../lib/observability/index.js';
import type { NodeView } from '../../../lib/ports/cluster.js';
import { node } from '../../unit/functions/support/fakes.js';

const A = 'i-0a000000000000001';
const B = 'i-0a000000000000002';
const C = 'i-0a000000000000003';

let runDir: string;
let emulator: Ec2Emulator | undefined;
let client: CloudWatchClient;

beforeAll(async () => {
  runDir = mkdtempSync(join(tmpdir(), 'kube-fencer-cloudwatch-'));
  emulator = await startEc2Emulator({ runDir });
  client = new CloudWatchClient({
    endpoint: emulator.endpoint,
    region: emulator.region,
    credentials: { accessKeyId: emulator.accessKeyId, secretAccessKey: emulator.secretAccessKey },
  });
});
afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
  if (emulator) rmSync(runDir, { recursive: true, force: true });
});

const alarmNames = async (): Promise<string[]> =>
  ((await client.send(new DescribeAlarmsCommand({}))).MetricAlarms ?? [])
    .map((a) => a.AlarmName ?? '')
    .sort();

describe('the status-check alarms of a cluster', () => {
  const nodes: NodeView[] = [];
  const deps = (cluster = 'prod'): StatusAlarmDeps => ({
    cluster: { listNodes: async () => nodes },
    compute: providerIdReaders,
    alarms: new CloudWatchStatusAlarms({ client, cluster, evaluationMinutes: 2 }),
    log: { info() {}, warn() {}, error() {} },
    metrics: new InMemoryMetrics(),
    region: 'us-east-1',
  });

  it('creates one alarm per node’s instance, on the combined status check, for two minutes of failure', async () => {
    nodes.push(
      node('node-a', `aws:///us-east-1a/${A}`),
      node('node-b', `aws:///us-east-1b/${B}`),
      node('node-far', 'aws:///eu-west-1a/i-0e000000000000009'),
      node('node-metal', undefined),
    );

    const report = await syncStatusAlarms(deps());

    expect(report).toMatchObject({ nodes: 4, unwatchable: 2, created: [A, B], removed: [], pending: 0 });
    const alarms = (
      await client.send(new DescribeAlarmsCommand({ AlarmNamePrefix: statusAlarmPrefix('prod') }))
    ).MetricAlarms;
    expect(alarms?.find((a) => a.AlarmName === `kube-fencer-prod-status-${A}`)).toMatchObject({
      Namespace: 'AWS/EC2',
      MetricName: 'StatusCheckFailed',
      Dimensions: [{ Name: 'InstanceId', Value: A }],
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 2,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const tags = await client.send(new ListTagsForResourceCommand({ ResourceARN: alarms?.[0]?.AlarmArn }));
    expect(tags.Tags).toEqual([{ Key: 'kube-fencer:cluster', Value: 'prod' }]);
  });

  it('creates nothing when nothing changed', async () => {
    const report = await syncStatusAlarms(deps());

    expect(report).toMatchObject({ created: [], removed: [] });
  });

  it('deletes the alarm of a node that left, adds the new one, and leaves other alarms alone', async () => {
    // Someone's own alarm, and another cluster whose name begins with this one's.
    await client.send(
      new PutMetricAlarmCommand({
        AlarmName: 'team-cpu-high',
        Namespace: 'AWS/EC2',
        MetricName: 'CPUUtilization',
        Statistic: 'Average',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 90,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    );
    nodes.splice(0, nodes.length, node('node-x', `aws:///us-east-1a/${A}`));
    await syncStatusAlarms({ ...deps('prod-status'), cluster: { listNodes: async () => nodes } });
    nodes.splice(
      0,
      nodes.length,
      node('node-b', `aws:///us-east-1b/${B}`),
      node('node-c', `aws:///us-east-1a/${C}`),
    );

    const report = await syncStatusAlarms(deps());

    expect(report).toMatchObject({ created: [C], removed: [A] });
    expect(await alarmNames()).toEqual(
      [
        `kube-fencer-prod-status-${B}`,
        `kube-fencer-prod-status-${C}`,
        `kube-fencer-prod-status-status-${A}`,
        'team-cpu-high',
      ].sort(),
    );
  });
});
