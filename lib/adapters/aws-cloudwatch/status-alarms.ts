/**
 * The StatusAlarms port on CloudWatch: one metric alarm per instance on `AWS/EC2 StatusCheckFailed`
 * (system or instance check), named `kube-fencer-<cluster>-status-<instance id>`. An alarm has no
 * action: CloudWatch sends every state change to EventBridge, where the stack's rule passes it to the
 * event router. Only alarms with that exact name shape are ever changed or deleted.
 */
import {
  type CloudWatchClient,
  DeleteAlarmsCommand,
  PutMetricAlarmCommand,
  type PutMetricAlarmCommandInput,
  paginateDescribeAlarms,
} from '@aws-sdk/client-cloudwatch';
import type { StatusAlarms } from '../../ports/status-alarms.js';

/** The alarm names of a cluster start with this. */
export const statusAlarmPrefix = (cluster: string): string => `kube-fencer-${cluster}-status-`;

/** The tag every alarm carries: whose it is. */
export const CLUSTER_TAG = 'kube-fencer:cluster';

const INSTANCE_ID = /^i-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;
/** DeleteAlarms takes at most 100 names. */
const DELETE_BATCH = 100;

export interface CloudWatchStatusAlarmsProps {
  readonly client: CloudWatchClient;
  readonly cluster: string;
  /** Minutes the check must fail (one datapoint a minute) before the alarm fires. */
  readonly evaluationMinutes: number;
}

/** {@link StatusAlarms} on CloudWatch metric alarms. */
export class CloudWatchStatusAlarms implements StatusAlarms {
  readonly #client: CloudWatchClient;
  readonly #cluster: string;
  readonly #prefix: string;
  readonly #minutes: number;

  constructor(props: CloudWatchStatusAlarmsProps) {
    this.#client = props.client;
    this.#cluster = props.cluster;
    this.#prefix = statusAlarmPrefix(props.cluster);
    this.#minutes = props.evaluationMinutes;
  }

  async listInstances(): Promise<readonly string[]> {
    const ids: string[] = [];
    const pages = paginateDescribeAlarms(
      { client: this.#client, pageSize: 100 },
      { AlarmNamePrefix: this.#prefix, AlarmTypes: ['MetricAlarm'] },
    );
    for await (const page of pages) {
      for (const alarm of page.MetricAlarms ?? []) {
        const id = alarm.AlarmName?.slice(this.#prefix.length) ?? '';
        // Another cluster's name may begin with this one's: only our exact shape counts.
        if (alarm.AlarmName?.startsWith(this.#prefix) && INSTANCE_ID.test(id)) ids.push(id);
      }
    }
    return ids;
  }

  async put(instanceId: string): Promise<void> {
    await this.#client.send(new PutMetricAlarmCommand(this.alarmOf(instanceId)));
  }

  async remove(instanceIds: readonly string[]): Promise<void> {
    for (let i = 0; i < instanceIds.length; i += DELETE_BATCH) {
      const AlarmNames = instanceIds.slice(i, i + DELETE_BATCH).map((id) => this.#prefix + id);
      await this.#client.send(new DeleteAlarmsCommand({ AlarmNames }));
    }
  }

  /** The alarm of one instance, as created. */
  alarmOf(instanceId: string): PutMetricAlarmCommandInput {
    return {
      AlarmName: this.#prefix + instanceId,
      AlarmDescription: `kube-fencer ${this.#cluster}: ${instanceId} failed its EC2 status checks; the fencer decides whether its node is fenced.`,
      Namespace: 'AWS/EC2',
      MetricName: 'StatusCheckFailed',
      Dimensions: [{ Name: 'InstanceId', Value: instanceId }],
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: this.#minutes,
      DatapointsToAlarm: this.#minutes,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      // A stopped or terminated instance reports nothing: that is no failure to fence for.
      TreatMissingData: 'missing',
      ActionsEnabled: false,
      Tags: [{ Key: CLUSTER_TAG, Value: this.#cluster }],
    };
  }
}
