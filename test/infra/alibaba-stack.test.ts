/**
 * The Alibaba Cloud ROS stacks, synthesized offline as `npm run synth:alibaba` does (the functions
 * bundled as deployed), checked on the invariants that matter: one stack per region, least-privilege
 * roles (a forced stop only of the cluster's tagged instances, only by the run function), the run as
 * task-mode asynchronous invocations whose ends reach the outcomes topic, the triggers, the alerts,
 * and a template that fits ROS's TemplateBody limit.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROS_TEMPLATE_BODY_LIMIT, synthAlibaba } from '../../infra-alicloud/app.js';
import { FC_FUNCTIONS } from '../../infra-alicloud/bundling.js';
import { alibabaClustersSchema } from '../../infra-alicloud/config.js';
import { REPO_ROOT } from '../../lab/paths.js';
import { ALIBABA_EVENTS } from '../../lib/config/alibaba-events.js';

// Templates are read as JSON and checked field by field.
// biome-ignore lint/suspicious/noExplicitAny: a template's JSON
type Json = Record<string, any>;

const clusters = [
  {
    name: 'prod',
    region: 'cn-hangzhou',
    kubeconfig: { kmsSecret: 'kube-fencer/prod' },
    sweep: { everyMinutes: 15, remediate: true },
    alertEmails: ['oncall@example.com'],
  },
  {
    name: 'batch',
    region: 'cn-hangzhou',
    kubeconfig: { oosParameter: 'kube-fencer-batch' },
    clusterTagKey: 'kube-fencer/cluster',
    controlPlaneLabels: ['example.com/role-etcd'],
    vpc: {
      vpcId: 'vpc-bp1aaaaaaaaaaaa',
      vSwitchIds: ['vsw-bp1bbbbbbbbbbbb'],
      securityGroupId: 'sg-bp1cccccccccccc',
    },
  },
  { name: 'sg', region: 'ap-southeast-1', kubeconfig: { kmsSecret: 'kube-fencer/sg' } },
];

describe('the Alibaba Cloud ROS stacks', () => {
  let out: string;
  let synthesized: Awaited<ReturnType<typeof synthAlibaba>>;
  let hangzhou: Json;
  const resources = (type: string) =>
    Object.entries(hangzhou.Resources as Json).filter(([, r]) => r.Type === type) as [string, Json][];
  const resource = (id: string): Json => hangzhou.Resources[id];
  const statementsOf = (roleId: string): Json[] =>
    resource(roleId).Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement);
  const actionsOf = (roleId: string): string[] => statementsOf(roleId).flatMap((s) => s.Action);

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'kube-fencer-ros-'));
    const file = join(out, 'clusters.json');
    writeFileSync(file, JSON.stringify(clusters));
    synthesized = await synthAlibaba(REPO_ROOT, file, join(out, 'cdk.out'));
    hangzhou = JSON.parse(readFileSync(join(out, 'cdk.out', 'KubeFencer-cn-hangzhou.template.json'), 'utf8'));
  });
  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
  });

  it('writes one stack per region, each within ROS’s template size limit', () => {
    expect(synthesized.map((s) => s.stack).sort()).toEqual([
      'KubeFencer-ap-southeast-1',
      'KubeFencer-cn-hangzhou',
    ]);
    for (const s of synthesized) {
      expect(statSync(s.template).size).toBe(s.bytes);
      expect(s.bytes).toBeLessThan(ROS_TEMPLATE_BODY_LIMIT);
    }
    expect(hangzhou.ROSTemplateFormatVersion).toBe('2015-09-01');
  });

  it('deploys five nodejs20 functions per cluster, their code from the uploaded zips', () => {
    const functions = resources('ALIYUN::FC3::Function').map(([, r]) => r.Properties);
    expect(functions.map((f) => f.FunctionName).sort()).toEqual(
      ['prod', 'batch'].flatMap((c) => FC_FUNCTIONS.map((f) => `kube-fencer-${c}-${f}`)).sort(),
    );
    for (const f of functions) {
      expect(f).toMatchObject({ Runtime: 'nodejs20', Handler: 'index.handler' });
      expect(f.Code.OssBucketName).toEqual({ Ref: 'CodeBucket' });
      const zip = join(out, 'cdk.out', 'code', f.Code.OssObjectName);
      expect(statSync(zip).size).toBeGreaterThan(0);
      expect(f.LogConfig).toMatchObject({ Project: { Ref: 'LogProjectName' }, Logstore: 'kube-fencer' });
    }
  });

  it('lets only the run function stop instances, and only those with the cluster’s ownership tag', () => {
    for (const [id] of resources('ALIYUN::RAM::Role')) {
      const stops = statementsOf(id).filter((s) => s.Action.some((a: string) => a.startsWith('ecs:Stop')));
      if (!id.endsWith('RunRole')) {
        expect(stops).toEqual([]);
        continue;
      }
      for (const stop of stops) {
        expect(stop.Action.sort()).toEqual(['ecs:StopInstance', 'ecs:StopInstances']);
        expect(JSON.stringify(stop.Resource)).toContain('instance/*');
        expect(stop.Condition).toBeDefined();
      }
    }
    // Either tag the ECS fencer accepts as the cluster's, each in its own statement.
    expect(statementsOf('ProdRunRole').flatMap((s) => (s.Condition ? [s.Condition] : []))).toEqual([
      { StringEquals: { 'acs:ResourceTag/ack.aliyun.com': ['prod'] } },
      { StringEquals: { 'acs:ResourceTag/kubernetes.io/cluster/prod': ['owned', 'shared'] } },
    ]);
    expect(statementsOf('BatchRunRole').flatMap((s) => (s.Condition ? [s.Condition] : []))).toEqual([
      { StringEquals: { 'acs:ResourceTag/kube-fencer/cluster': ['batch'] } },
    ]);
    expect(resource('BatchRunFunction').Properties.EnvironmentVariables.FENCER_ECS_CLUSTER_TAG_KEY).toBe(
      'kube-fencer/cluster',
    );
  });

  it('gives the run function the cluster’s own control-plane labels, and sets none where there are none', () => {
    expect(resource('BatchRunFunction').Properties.EnvironmentVariables.FENCER_CONTROL_PLANE_LABELS).toBe(
      'example.com/role-etcd',
    );
    expect(
      resource('ProdRunFunction').Properties.EnvironmentVariables.FENCER_CONTROL_PLANE_LABELS,
    ).toBeUndefined();
  });

  it('grants no wildcard action, and a wildcard resource only to ECS Describe calls', () => {
    for (const [id] of resources('ALIYUN::RAM::Role')) {
      expect(actionsOf(id).filter((a) => a.includes('*'))).toEqual([]);
      for (const s of statementsOf(id).filter((s) => s.Resource.includes('*'))) {
        expect(s.Action.every((a: string) => a.startsWith('ecs:Describe'))).toBe(true);
      }
      const trust = resource(id).Properties.AssumeRolePolicyDocument.Statement;
      expect(trust).toEqual([expect.objectContaining({ Principal: { Service: ['fc.aliyuncs.com'] } })]);
    }
    // The triggers read nothing from ECS; they start and read the run's tasks.
    for (const trigger of ['ProdEventRouterRole', 'ProdHealthCheckRole', 'ProdManualRole']) {
      expect(actionsOf(trigger).filter((a) => a.startsWith('ecs:'))).toEqual([]);
      expect(actionsOf(trigger)).toEqual(expect.arrayContaining(['fc:InvokeFunction', 'fc:GetAsyncTask']));
    }
    expect(JSON.stringify(statementsOf('ProdManualRole'))).toContain('functions/kube-fencer-prod-run');
    // The report-only sweep starts nothing; the remediating one does.
    expect(actionsOf('BatchSweepRole')).not.toContain('fc:InvokeFunction');
    expect(actionsOf('ProdSweepRole')).toContain('fc:InvokeFunction');
    // Each reads its own kubeconfig: a KMS secret, or an OOS parameter and its decryption.
    expect(actionsOf('ProdRunRole')).toContain('kms:GetSecretValue');
    expect(actionsOf('BatchRunRole')).toEqual(
      expect.arrayContaining(['oos:GetSecretParameter', 'kms:Decrypt']),
    );
  });

  it('runs a fencing run as a task-mode async invocation, retried, its ends delivered to the outcomes topic', () => {
    const config = resource('ProdRunAsyncConfig').Properties;
    expect(config).toMatchObject({
      FunctionName: 'kube-fencer-prod-run',
      AsyncTask: true,
      MaxAsyncRetryAttempts: 2,
    });
    const destinations = JSON.stringify(config.DestinationConfig);
    expect(destinations).toContain('/topics/kube-fencer-outcomes/messages');
    expect(Object.keys(config.DestinationConfig).sort()).toEqual(['OnFailure', 'OnSuccess']);
    const env = (id: string) => resource(id).Properties.EnvironmentVariables;
    expect(env('ProdHealthCheckFunction').FENCER_RUN_FUNCTION).toBe('kube-fencer-prod-run');
    expect(env('ProdRunFunction').FENCER_RUN_FUNCTION).toBeUndefined();
    // One attempt's budget fits in the function's timeout, with room to give its claim back.
    expect(resource('ProdRunFunction').Properties.Timeout).toBeGreaterThan(
      Number(env('ProdRunFunction').FENCER_RUN_TIMEOUT_SECONDS),
    );
  });

  it('triggers the router on the default bus for the events it handles, and the timers on the configured schedules', () => {
    const events = resource('ProdEcsEvents').Properties;
    expect(events.TriggerType).toBe('eventbridge');
    expect(events.TriggerConfig.eventSourceConfig).toEqual({ eventSourceType: 'Default' });
    expect(JSON.parse(events.TriggerConfig.eventRuleFilterPattern)).toEqual({
      source: [ALIBABA_EVENTS.ecs.source, ALIBABA_EVENTS.own.source],
      type: [...ALIBABA_EVENTS.ecs.types, ...ALIBABA_EVENTS.own.types],
    });
    expect(resource('ProdHealthCheckTimer').Properties.TriggerConfig).toMatchObject({
      cronExpression: '@every 1m',
    });
    expect(resource('ProdSweepTimer').Properties.TriggerConfig).toMatchObject({
      cronExpression: '@every 15m',
    });
  });

  it('alerts per cluster on failed fencings, refusals, runs not started and function errors', () => {
    const alerts = resources('ALIYUN::SLS::Alert').map(([, r]) => r.Properties.Detail);
    expect(
      alerts
        .filter((a) => a.Name.startsWith('kube-fencer-prod-'))
        .map((a) => a.Name)
        .sort(),
    ).toEqual([
      'kube-fencer-prod-errors',
      'kube-fencer-prod-failed',
      'kube-fencer-prod-not-started',
      'kube-fencer-prod-refused',
    ]);
    const failed = alerts.find((a) => a.Name === 'kube-fencer-prod-failed');
    expect(failed.Configuration.QueryList[0].Query).toContain(
      'metric: FencingRuns and outcome: failed and cluster: "prod"',
    );
    expect(failed.Configuration.NotificationList[0].EmailList).toEqual(['oncall@example.com']);
    expect(resource('Index').Properties.KeyIndices.map((k: Json) => k.Name)).toEqual(
      expect.arrayContaining(['metric', 'outcome', 'reason', 'cluster']),
    );
  });

  it('places a cluster’s functions in its VPC when it has one', () => {
    expect(resource('BatchRunFunction').Properties.VpcConfig).toEqual({
      VpcId: 'vpc-bp1aaaaaaaaaaaa',
      VSwitchIds: ['vsw-bp1bbbbbbbbbbbb'],
      SecurityGroupId: 'sg-bp1cccccccccccc',
    });
    expect(resource('ProdRunFunction').Properties.VpcConfig).toBeUndefined();
  });

  it('refuses a configuration that names a cluster twice, or both kinds of kubeconfig', () => {
    expect(() => alibabaClustersSchema.parse([clusters[0], clusters[0]])).toThrow(/unique/);
    expect(() =>
      alibabaClustersSchema.parse([{ ...clusters[0], kubeconfig: { kmsSecret: 'a', oosParameter: 'b' } }]),
    ).toThrow();
    expect(() => alibabaClustersSchema.parse([{ ...clusters[0], region: 'Hangzhou' }])).toThrow(/region/);
  });
});
