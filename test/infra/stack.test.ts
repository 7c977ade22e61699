/** The synthesized stack: IAM, functions, rules and schedules, encryption, EKS access, alarms. */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { SWEEP_MEMORY_MB } from '../../infra/constructs/cluster-fencer.js';
import { triggerPatterns } from '../../infra/constructs/event-rules.js';
import { synth } from '../support/synth.js';

const EKS = { name: 'prod', eks: {} };
const SECRET = {
  name: 'edge',
  kubeconfigSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:edge-kubeconfig-AbCdEf',
  allowTerminate: true,
};
const { template } = synth([EKS]);

type Statement = {
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
  Effect: string;
  Principal?: unknown;
};
type Document = { Statement: Statement[] };
const statements = (t: Template, type = 'AWS::IAM::Policy'): Statement[] =>
  Object.values(t.findResources(type)).flatMap((r) => {
    const p = (r as { Properties: { PolicyDocument?: Document; KeyPolicy?: Document } }).Properties;
    return (p.PolicyDocument ?? p.KeyPolicy)?.Statement ?? [];
  });
const actions = (s: Statement): string[] => [s.Action].flat();
const ownedBy = (cluster: string) => ({
  StringEquals: { [`aws:ResourceTag/kubernetes.io/cluster/${cluster}`]: ['owned', 'shared'] },
});

describe('IAM', () => {
  it('allows ec2:StopInstances only on instances carrying the cluster’s ownership tag', () => {
    const stops = statements(template).filter((s) => actions(s).includes('ec2:StopInstances'));

    expect(stops).toHaveLength(1);
    expect(stops[0]?.Condition).toEqual(ownedBy('prod'));
    expect(JSON.stringify(stops[0]?.Resource)).toContain(':instance/*');
  });

  it('grants no ec2:TerminateInstances unless the cluster allows terminating, and then under the same condition', () => {
    expect(statements(template).flatMap(actions)).not.toContain('ec2:TerminateInstances');

    const terminates = statements(synth([SECRET]).template).filter((s) =>
      actions(s).includes('ec2:TerminateInstances'),
    );
    expect(terminates).toHaveLength(1);
    expect(terminates[0]?.Condition).toEqual(ownedBy('edge'));
  });

  it('has no wildcard action in any IAM policy', () => {
    for (const t of [template, synth([SECRET]).template]) {
      expect(
        statements(t)
          .flatMap(actions)
          .filter((a) => a.includes('*')),
      ).toEqual([]);
    }
  });

  it('keeps kms:* in the key policy to the account’s own root (the key’s administration), services get named actions', () => {
    const wild = statements(template, 'AWS::KMS::Key').filter((s) => actions(s).some((a) => a.includes('*')));

    expect(wild).toEqual([
      expect.objectContaining({
        Action: 'kms:*',
        // The partition is a literal: the stack's region is known and cdk.json enables partition literals.
        Principal: { AWS: 'arn:aws:iam::123456789012:root' },
      }),
    ]);
  });

  it('lets only the triggers start runs, and only on their cluster’s state machine', () => {
    const starts = statements(template).filter((s) => actions(s).includes('states:StartExecution'));

    expect(starts).toHaveLength(3);
    for (const s of starts)
      expect(s.Resource).toEqual({ Ref: expect.stringMatching(/^ClusterprodWorkflowStateMachine/) });
  });

  it('reads the kubeconfig secret of a non-EKS cluster, and that secret only', () => {
    const reads = statements(synth([SECRET]).template).filter((s) =>
      actions(s).includes('secretsmanager:GetSecretValue'),
    );

    expect(reads).toHaveLength(5);
    for (const s of reads) expect(s.Resource).toBe(SECRET.kubeconfigSecretArn);
  });
});

/** The IAM policies attached to the sweep function's role, as one JSON string. */
const sweepPolicies = (t: Template): string =>
  JSON.stringify(
    Object.values(t.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.Roles).includes('Clusterprodsweep'),
    ),
  );

describe('functions', () => {
  it('run on the tested runtime, arm64, with X-Ray, JSON logs and an encrypted log group with retention', () => {
    template.resourceCountIs('AWS::Lambda::Function', 5);
    template.allResourcesProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: Match.objectLike({ LogFormat: 'JSON' }),
      Timeout: Match.anyValue(),
    });
    template.allResourcesProperties('AWS::Logs::LogGroup', {
      RetentionInDays: 90,
      KmsKeyId: Match.anyValue(),
    });
  });

  it('are configured for their cluster and EKS access', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('one reconcile step'),
      Environment: {
        Variables: Match.objectLike({
          FENCER_CLUSTER: 'prod',
          FENCER_CLUSTER_ACCESS: 'eks',
          FENCER_EKS_CLUSTER_NAME: 'prod',
        }),
      },
    });
  });
  it('give the step function and the health check the cluster’s own control-plane labels, and refuse a key Kubernetes would not accept', () => {
    const { template: labelled } = synth([
      { ...EKS, controlPlaneLabels: ['example.com/role-etcd', 'example.com/role-api'] },
    ]);
    labelled.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('one reconcile step'),
      Environment: {
        Variables: Match.objectLike({
          FENCER_CONTROL_PLANE_LABELS: 'example.com/role-etcd,example.com/role-api',
        }),
      },
    });
    // The health check skips such nodes before it starts a run, so it knows them too.
    labelled.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('fence nodes NotReady too long'),
      Environment: {
        Variables: Match.objectLike({
          FENCER_CONTROL_PLANE_LABELS: 'example.com/role-etcd,example.com/role-api',
        }),
      },
    });
    // Without any, the variable is not set at all.
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('one reconcile step'),
      Environment: { Variables: Match.objectLike({ FENCER_CONTROL_PLANE_LABELS: Match.absent() }) },
    });
    expect(() => synth([{ ...EKS, controlPlaneLabels: ['not a label'] }])).toThrow(
      /control-plane labels must be Kubernetes label keys.*not a label/s,
    );
  });

  it('give the sweep the memory its compact views need at 125,000 VolumeAttachments, and the others the default', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('sweep zombie'),
      MemorySize: SWEEP_MEMORY_MB,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('fence nodes NotReady too long'),
      MemorySize: 512,
    });
  });
});

describe('EventBridge', () => {
  it.each(Object.entries(triggerPatterns('prod')))('routes %s events to the event router', (id, pattern) => {
    const expected = {
      source: pattern.source,
      'detail-type': pattern.detailType,
      detail: pattern.detail,
    };
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectEquals(expected),
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ClusterprodeventrouterFunction'), 'Arn'] },
        }),
      ],
      Description: Match.stringLikeRegexp(id),
    });
  });

  it('matches exactly the EC2 status-check alarms, open EC2 Health issues, stopped/terminated instances and our own event', () => {
    const patterns = triggerPatterns('prod');

    expect(patterns.StatusCheckAlarm?.detail).toEqual({
      state: { value: ['ALARM'] },
      configuration: {
        metrics: {
          metricStat: {
            metric: {
              namespace: ['AWS/EC2'],
              name: ['StatusCheckFailed', 'StatusCheckFailed_System', 'StatusCheckFailed_Instance'],
            },
          },
        },
      },
    });
    expect(patterns.Ec2HealthIssue).toMatchObject({
      source: ['aws.health'],
      detailType: ['AWS Health Event'],
      detail: { service: ['EC2'], eventTypeCategory: ['issue'] },
    });
    expect(patterns.InstancePoweredOff).toMatchObject({
      source: ['aws.ec2'],
      detail: { state: ['stopped', 'terminated'] },
    });
    expect(patterns.NodeUnreachable).toEqual({
      source: ['kube-fencer'],
      detailType: ['Node Unreachable'],
      detail: { cluster: ['prod'] },
    });
  });

  it('runs the health check on a schedule', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ClusterprodhealthcheckFunction'), 'Arn'] },
        }),
      ],
    });
    const every5 = synth([
      { ...EKS, healthCheck: { everyMinutes: 5, notReadyThresholdSeconds: 300 } },
    ]).template;
    every5.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
  });

  it('runs the sweep on its own schedule, report-only and read-only on EC2 by default', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ClusterprodsweepFunction'), 'Arn'] },
        }),
      ],
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ FENCER_SWEEP_REMEDIATE: 'false' }) },
    });
    const actions = sweepPolicies(template);
    expect(actions).toContain('ec2:DescribeVolumes');
    expect(actions).not.toContain('ec2:StopInstances');
    expect(actions).not.toContain('states:StartExecution');
  });

  it('lets a remediating sweep start fencing runs, still never power off itself', () => {
    const remediating = synth([{ ...EKS, sweep: { everyMinutes: 30, remediate: true } }]).template;
    remediating.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(30 minutes)' });
    const actions = sweepPolicies(remediating);
    expect(actions).toContain('states:StartExecution');
    expect(actions).not.toContain('ec2:StopInstances');
  });

  it('sends events it cannot deliver to an encrypted dead-letter queue, after retries', () => {
    template.allResourcesProperties('AWS::Events::Rule', {
      Targets: [
        Match.objectLike({
          DeadLetterConfig: { Arn: Match.anyValue() },
          RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 3600 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::SQS::Queue', { KmsMasterKeyId: Match.anyValue() });
  });
});

describe('encryption and the outcomes topic', () => {
  it('encrypts the topic with the stack’s rotating key and requires TLS', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Key'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('EKS access', () => {
  it('maps the step function’s role to kube-fencer, the triggers’ to kube-fencer-trigger and the report-only sweep’s to kube-fencer-sweep', () => {
    const entries = Object.values(template.findResources('AWS::EKS::AccessEntry')).map(
      (r) =>
        (
          r as {
            Properties: {
              PrincipalArn: { 'Fn::GetAtt': string[] };
              KubernetesGroups: string[];
              ClusterName: string;
            };
          }
        ).Properties,
    );

    expect(
      entries.map((e) => [
        e.PrincipalArn['Fn::GetAtt'][0]?.replace(/Role.*$/, ''),
        e.KubernetesGroups,
        e.ClusterName,
      ]),
    ).toEqual([
      ['Clusterprodstep', ['kube-fencer'], 'prod'],
      ['Clusterprodeventrouter', ['kube-fencer-trigger'], 'prod'],
      ['Clusterprodhealthcheck', ['kube-fencer-trigger'], 'prod'],
      ['Clusterprodmanual', ['kube-fencer-trigger'], 'prod'],
      ['Clusterprodsweep', ['kube-fencer-sweep'], 'prod'],
    ]);
  });

  it('applies deploy/rbac.yaml through the kubectl provider when given kubectl access', () => {
    const withKubectl = synth([
      {
        name: 'prod',
        eks: {
          kubectlRoleArn: 'arn:aws:iam::123456789012:role/kubectl',
          kubectlLayerArn: 'arn:aws:lambda:us-east-1:123456789012:layer:kubectl:1',
        },
      },
    ]).template;

    withKubectl.hasResourceProperties('Custom::AWSCDK-EKS-KubernetesResource', {
      ClusterName: 'prod',
      Manifest: Match.stringLikeRegexp('"kind":"ClusterRoleBinding".*"name":"kube-fencer"'),
    });
  });

  it('creates no access entry for a cluster reached through a kubeconfig secret', () => {
    synth([SECRET]).template.resourceCountIs('AWS::EKS::AccessEntry', 0);
  });
});

describe('alarms and dashboard', () => {
  it.each([
    ['failed fencings', 'FailedFencings', 'FencingRuns', { outcome: 'failed' }],
    ['refusals', 'Refusals', 'FencingRuns', { outcome: 'refused' }],
    ['stuck VolumeAttachments', 'StuckVolumeAttachments', 'FencingReasons', { reason: 'DrainNotComplete' }],
    [
      'a stand-down for too many unhealthy nodes',
      'TooManyUnhealthy',
      'FencingReasons',
      { reason: 'TooManyUnhealthy' },
    ],
    [
      'an event naming too many nodes',
      'TooManyNodesInEvent',
      'FencingReasons',
      { reason: 'TooManyNodesInEvent' },
    ],
  ])(
    'alarms on %s of the cluster (KubeFencer/%s) and notifies the topic',
    (_name, alarm, metric, dimension) => {
      const [[key, value]] = Object.entries(dimension) as [[string, string]];
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `KubeFencer-prod-${alarm}`,
        Namespace: 'KubeFencer',
        MetricName: metric,
        Threshold: 1,
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: Match.stringLikeRegexp('^Outcomes') }],
      });
      const found = Object.values(template.findResources('AWS::CloudWatch::Alarm')).find(
        (a) =>
          (a as { Properties: { AlarmName: string } }).Properties.AlarmName === `KubeFencer-prod-${alarm}`,
      ) as { Properties: { Dimensions: { Name: string; Value: string }[] } };
      const byName = (a: { Name: string }, b: { Name: string }) => a.Name.localeCompare(b.Name);
      expect([...found.Properties.Dimensions].sort(byName)).toEqual(
        [
          { Name: key, Value: value },
          { Name: 'cluster', Value: 'prod' },
          { Name: 'service', Value: 'kube-fencer' },
        ].sort(byName),
      );
    },
  );

  it('alarms on workflow runs that fail or time out', () => {
    for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/States',
        MetricName: metric,
      });
    }
  });

  it('has a dashboard', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });
});

describe('several clusters', () => {
  it('gives each cluster its own functions, workflow and rules, scoped to its own tag', () => {
    const both = synth([EKS, SECRET]).template;

    both.resourceCountIs('AWS::Lambda::Function', 10);
    both.resourceCountIs('AWS::StepFunctions::StateMachine', 2);
    const conditions = statements(both)
      .filter((s) => actions(s).includes('ec2:StopInstances'))
      .map((s) => s.Condition);
    expect(conditions).toEqual([ownedBy('prod'), ownedBy('edge')]);
  });

  it('refuses a configuration that names no way into the cluster, or two', () => {
    expect(() => synth([{ name: 'x' }])).toThrow(/exactly one of eks and kubeconfigSecretArn/);
    expect(() => synth([{ ...SECRET, eks: {} }])).toThrow(/exactly one/);
    expect(() => synth([EKS, EKS])).toThrow(/unique/);
  });
});
