/**
 * The functions as the stack deploys them, run in the lab. Each runs under exactly the Kubernetes
 * identity the stack gives its role: a user in the group its EKS access entry names (read from the
 * synthesized template), bound by deploy/rbac.yaml and nothing else. The report-only sweep, the health
 * check and the status-check alarms' keeper each do their whole job with no request forbidden and no
 * request that writes. And a router that fails an event ends, after the retries the template sets, in
 * the failure queue with the event and the error (Lambda's async machinery is a mock, test/support/async-invoke.ts).
 */
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { StorageV1Api } from '@kubernetes/client-node';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClusterInstance, terminateInstance } from '../../lab/ec2-emulator.js';
import { type AuditEvent, type Lab, startLab } from '../../lab/lab.js';
import { taintOutOfService } from '../../lab/scenarios/incident.js';
import { deployStatefulApp } from '../../lab/scenarios/stateful-app.js';
import { statusAlarmPrefix } from '../../lib/adapters/aws-cloudwatch/index.js';
import { parseEvent } from '../../lib/config/events.js';
import { invokeAsync } from '../support/async-invoke.js';
import { createClaimAndPod, createPv, createVa } from '../support/sweep-fixtures.js';
import { synth } from '../support/synth.js';
import { statusCheckAlarm } from '../unit/functions/support/aws-events.js';

type Handler = (event: unknown, context: Context) => Promise<Record<string, unknown>>;

const { template } = synth([{ name: 'lab', eks: {}, statusCheckAlarms: {} }]);

/** The Kubernetes group the stack maps each function's role to (its EKS access entry). */
function groupsOfAccessEntries(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(template.findResources('AWS::EKS::AccessEntry')).map(([id, r]) => [
      id.replace(/^Cluster\w*?lab/, '').replace(/Access.*$/, ''),
      (r as { Properties: { KubernetesGroups: string[] } }).Properties.KubernetesGroups[0] as string,
    ]),
  );
}

/** The router's asynchronous invocation settings, as synthesized. */
function routerInvokeConfig(): { retries: number; destination: string } {
  const config = Object.values(template.findResources('AWS::Lambda::EventInvokeConfig')).find((r) =>
    JSON.stringify((r as { Properties: unknown }).Properties).includes('eventrouter'),
  ) as {
    Properties: {
      MaximumRetryAttempts: number;
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': string[] } } };
    };
  };
  return {
    retries: config.Properties.MaximumRetryAttempts,
    destination: config.Properties.DestinationConfig.OnFailure.Destination['Fn::GetAtt'][0] as string,
  };
}

/** Static imports (the bundler resolves them), loaded afresh for each identity. */
const HANDLERS = {
  sweep: () => import('../../functions/sweep/index.js'),
  'health-check': () => import('../../functions/health-check/index.js'),
  'alarm-sync': () => import('../../functions/alarm-sync/index.js'),
  'event-router': () => import('../../functions/event-router/index.js'),
} as const;

const GROUPS = groupsOfAccessEntries();
const USERS = {
  Sweep: 'lab-sweep-role',
  HealthCheck: 'lab-health-check-role',
  AlarmSync: 'lab-alarm-sync-role',
  Router: 'lab-router-role',
};
const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

const context = (name: string) =>
  ({
    awsRequestId: `req-${name}`,
    functionName: name,
    getRemainingTimeInMillis: () => 90_000,
  }) as unknown as Context;
const tick = {
  version: '0',
  id: 'tick-identities',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '123456789012',
  time: '2026-02-02T17:15:00Z',
  region: 'us-east-1',
  resources: ['arn:aws:events:us-east-1:123456789012:rule/schedule'],
  detail: {},
};

describe('the functions in the lab as the stack deploys them', () => {
  let lab: Lab;
  const savedEnv = { ...process.env };

  /** Imports a handler afresh, configured for `user` (every module re-reads its settings). */
  const handlerAs = async (
    fn: keyof typeof HANDLERS,
    user: string,
    env: Record<string, string> = {},
  ): Promise<Handler> => {
    vi.resetModules();
    process.env = {
      ...savedEnv,
      ...lab.fencerEnv,
      FENCER_CLUSTER_ACCESS: 'kubeconfig-file',
      FENCER_KUBECONFIG_PATH: lab.identityKubeconfigPath(user),
      FENCER_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:123456789012:stateMachine:lab-fencing',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      ...env,
    };
    return ((await HANDLERS[fn]()) as unknown as { handler: Handler }).handler;
  };

  const expectReadOnlyAndAllowed = (requests: readonly AuditEvent[]) => {
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.responseStatus?.code === 403)).toEqual([]);
    expect(requests.filter((r) => WRITES.has(r.verb))).toEqual([]);
  };

  beforeAll(async () => {
    lab = await startLab({
      nodes: 3,
      identities: [
        { user: USERS.Sweep, groups: [GROUPS.Sweep as string] },
        { user: USERS.HealthCheck, groups: [GROUPS.HealthCheck as string] },
        { user: USERS.AlarmSync, groups: [GROUPS.AlarmSync as string] },
        { user: USERS.Router, groups: [GROUPS.Router as string] },
      ],
    });
    await deployStatefulApp(lab, { onNode: 'node-a' });
    // Something for every read of the sweep: a zombie VolumeAttachment whose node and instance are
    // gone (the EC2 cross-check), a taint left on a Ready node (its pods), a Pending pod whose zonal
    // volume has no node in its zone (claims, CSI nodes), and a StorageClass that binds at once.
    const gone = await createClusterInstance(lab.ec2.client, {
      cluster: lab.cluster,
      zone: `${lab.region}a`,
      name: 'node-gone',
    });
    await terminateInstance(lab.ec2.client, gone.instanceId);
    await createPv(lab, { name: 'pv-zombie', volumeHandle: 'vol-0000000000000000d' });
    await createVa(lab, {
      name: 'va-zombie',
      nodeName: 'node-gone',
      pvName: 'pv-zombie',
      csiNodeId: gone.instanceId,
      status: { attached: true },
    });
    await taintOutOfService(lab, 'node-c');
    await createPv(lab, {
      name: 'pv-zone-z',
      volumeHandle: 'vol-0000000000000000e',
      driver: 'ebs.csi.aws.com',
      zone: `${lab.region}z`,
      claim: { namespace: 'default', name: 'zone-z' },
    });
    await createClaimAndPod(lab, { name: 'zone-z', pvName: 'pv-zone-z' });
    await lab.kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
      body: {
        metadata: { name: 'gp3-immediate' },
        provisioner: 'ebs.csi.aws.com',
        volumeBindingMode: 'Immediate',
      },
    });
  });
  afterAll(async () => {
    process.env = savedEnv;
    vi.resetModules();
    await lab?.stop();
  });

  it('maps the report-only sweep, the health check and the alarms’ keeper to read-only groups', () => {
    expect(GROUPS).toMatchObject({
      Sweep: 'kube-fencer-sweep',
      HealthCheck: 'kube-fencer-trigger',
      AlarmSync: 'kube-fencer-trigger',
    });
  });

  it('sweeps report-only with its own RBAC: every class it reads for is found, nothing forbidden, nothing written', async () => {
    const sweep = await handlerAs('sweep', USERS.Sweep, {
      FENCER_SWEEP_NOT_READY_SECONDS: '0',
      FENCER_SWEEP_STUCK_DELETING_SECONDS: '0',
      FENCER_SWEEP_ATTACH_ERROR_SECONDS: '0',
    });

    const report = await sweep(tick, context('sweep'));

    expect(report).toMatchObject({
      mode: 'report-only',
      counts: expect.objectContaining({
        VA_NODE_MISSING: 1,
        TAINT_LEFT_BEHIND: 1,
        NO_HEALTHY_NODE_IN_PV_ZONE: 1,
        SC_IMMEDIATE_BINDING: 1,
      }),
    });
    const requests = lab.requestsBy(USERS.Sweep);
    expectReadOnlyAndAllowed(requests);
    const read = new Set(requests.map((r) => `${r.verb} ${r.objectRef?.resource}`));
    for (const what of [
      'list nodes',
      'list volumeattachments',
      'list persistentvolumes',
      'list persistentvolumeclaims',
      'list pods',
      'list storageclasses',
      'list csinodes',
      'get leases',
    ]) {
      expect(read, what).toContain(what);
    }
  });

  it('runs the health check with the triggers’ RBAC, nothing forbidden', async () => {
    const healthCheck = await handlerAs('health-check', USERS.HealthCheck);

    const report = await healthCheck(tick, context('health-check'));

    expect(report).toMatchObject({ totalNodes: 3, refused: null });
    expectReadOnlyAndAllowed(lab.requestsBy(USERS.HealthCheck));
  });

  it('keeps an alarm per node with the triggers’ RBAC, each one the router turns into its node’s trigger', async () => {
    const alarmSync = await handlerAs('alarm-sync', USERS.AlarmSync, {
      AWS_ENDPOINT_URL_CLOUDWATCH: lab.ec2.endpoint,
    });

    const report = await alarmSync(tick, context('alarm-sync'));

    expect(report).toMatchObject({ nodes: 3, unwatchable: 0, pending: 0 });
    expectReadOnlyAndAllowed(lab.requestsBy(USERS.AlarmSync));
    const { CloudWatchClient } = await import('@aws-sdk/client-cloudwatch');
    const cloudwatch = new CloudWatchClient({
      endpoint: lab.ec2.endpoint,
      region: lab.region,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    });
    const alarms =
      (await cloudwatch.send(new DescribeAlarmsCommand({ AlarmNamePrefix: statusAlarmPrefix(lab.cluster) })))
        .MetricAlarms ?? [];
    expect(alarms.map((a) => a.Dimensions?.[0]?.Value).sort()).toEqual(
      lab.nodes.map((n) => n.instanceId).sort(),
    );
    // The alarm going off, as EventBridge delivers it, names the node's instance to the router.
    const alarm = alarms.find((a) => a.Dimensions?.[0]?.Value === lab.node('node-a').instanceId);
    const event = {
      version: '0',
      id: 'alarm-event',
      'detail-type': 'CloudWatch Alarm State Change',
      source: 'aws.cloudwatch',
      account: '123456789012',
      time: '2026-02-02T17:20:00Z',
      region: lab.region,
      resources: [alarm?.AlarmArn],
      detail: {
        alarmName: alarm?.AlarmName,
        state: { value: 'ALARM', timestamp: '2026-02-02T17:20:00.000+0000' },
        configuration: {
          metrics: [
            {
              id: 'm1',
              metricStat: {
                metric: {
                  namespace: alarm?.Namespace,
                  name: alarm?.MetricName,
                  dimensions: Object.fromEntries((alarm?.Dimensions ?? []).map((d) => [d.Name, d.Value])),
                },
              },
            },
          ],
        },
      },
    };
    expect(parseEvent(event)).toMatchObject({
      kind: 'instances',
      instanceIds: [lab.node('node-a').instanceId],
    });
  });

  it('puts an event the router failed, after the retries the template sets, in the failure queue with the error', async () => {
    const { retries, destination } = routerInvokeConfig();
    const sqs = new SQSClient({
      endpoint: lab.ec2.endpoint,
      region: lab.region,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    });
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: destination }))).QueueUrl ?? '';
    // A state machine Step Functions does not know: every start fails, as with a deleted or denied one.
    const router = await handlerAs('event-router', USERS.Router, {
      AWS_ENDPOINT_URL_SFN: lab.ec2.endpoint,
      FENCER_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:123456789012:stateMachine:lab-missing',
    });
    const alarm = statusCheckAlarm('StatusCheckFailed_System', 'ALARM', lab.node('node-b').instanceId);

    const sent = await invokeAsync(router, alarm, {
      functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:lab-event-router',
      maximumRetryAttempts: retries,
      onFailure: { client: sqs, queueUrl },
    });

    expect(retries).toBe(2);
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
    );
    expect(received.Messages).toHaveLength(1);
    const record = JSON.parse(received.Messages?.[0]?.Body ?? '{}');
    expect(record).toEqual(sent);
    expect(record).toMatchObject({
      requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      requestPayload: { id: alarm.id, detail: { alarmName: alarm.detail.alarmName } },
      responsePayload: {
        errorType: 'RunStartError',
        errorMessage: expect.stringMatching(
          /1 run\(s\) could not be started: node-b: Step Functions StartExecution/,
        ),
      },
    });
    expectReadOnlyAndAllowed(lab.requestsBy(USERS.Router));
  });
});
