/**
 * The alerts of one cluster, from the metric lines the functions write to the logstore
 * (lib/observability/fc.ts): a failed fencing, a refusal, a run that could not be started, a function
 * that threw. They tell failures from refusals, as the AWS stack's alarms do: a refusal is the fencer
 * keeping a rule (someone should look), a failure is the fencer unable to finish (someone must act).
 * SLS alerting evaluates them every minute and notifies the cluster's e-mail addresses.
 */
import * as ros from '@alicloud/ros-cdk-core';
import * as sls from '@alicloud/ros-cdk-sls';
import type { AlibabaClusterConfig } from '../config.js';
import { logicalId } from './policies.js';

export interface FencingAlertsProps {
  readonly cluster: AlibabaClusterConfig;
  readonly logProject: string;
  readonly logstore: string;
}

/** One alert: its id, what it is about, and the search that counts it. */
interface AlertSpec {
  readonly id: string;
  readonly title: string;
  /** SLS severity: 10 critical, 8 high, 6 medium. */
  readonly severity: 10 | 8 | 6;
  readonly search: string;
}

/** The alerts, by the fencer's own metric names and dimensions. */
export const alertSpecs = (cluster: string): readonly AlertSpec[] => [
  {
    id: 'failed',
    title: `kube-fencer ${cluster}: a fencing run failed`,
    severity: 10,
    search: `metric: FencingRuns and outcome: failed and cluster: "${cluster}"`,
  },
  {
    id: 'refused',
    title: `kube-fencer ${cluster}: a fencing was refused`,
    severity: 6,
    search: `metric: FencingRuns and outcome: refused and cluster: "${cluster}"`,
  },
  {
    id: 'not-started',
    title: `kube-fencer ${cluster}: a fencing run could not be started`,
    severity: 8,
    search: `metric: RunStartsFailed and cluster: "${cluster}"`,
  },
  {
    id: 'errors',
    title: `kube-fencer ${cluster}: a function threw`,
    severity: 8,
    search: `metric: FunctionErrors and cluster: "${cluster}"`,
  },
];

export class FencingAlerts extends ros.Construct {
  constructor(scope: ros.Construct, id: string, props: FencingAlertsProps) {
    super(scope, id);
    const { cluster } = props;
    // SLS fills in its own ${...} variables when it sends the mail: not a template literal here.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: SLS alert content variables
    const content = '${alert_name}: ${results}';
    const notify = cluster.alertEmails.length
      ? [{ type: 'Email', emailList: cluster.alertEmails, content }]
      : [];
    for (const spec of alertSpecs(cluster.name)) {
      new sls.Alert(this, logicalId(cluster.name, spec.id, 'Alert'), {
        project: props.logProject,
        detail: {
          name: `kube-fencer-${cluster.name}-${spec.id}`.slice(0, 64),
          displayName: spec.title,
          description: `Counts the metric lines: ${spec.search}`,
          schedule: { type: 'FixedRate', interval: '1m' },
          configuration: {
            version: '2.0',
            type: 'default',
            dashboard: 'internal-alert-analysis',
            queryList: [
              {
                query: `${spec.search} | select count(*) as cnt`,
                store: props.logstore,
                storeType: 'log',
                start: '-5m',
                end: 'now',
                timeSpanType: 'Relative',
              },
            ],
            severityConfigurations: [
              { severity: spec.severity, evalCondition: { condition: 'cnt > 0', countCondition: '' } },
            ],
            ...(notify.length ? { notificationList: notify } : {}),
            noDataFire: false,
            sendResolved: false,
            threshold: 1,
          },
        },
      });
    }
  }
}
