/**
 * What a platform team needs before production, read from the synthesized template: private-endpoint
 * placement, no lost trigger, bounded concurrency, the status-check alarms, the vended-logs log group,
 * the key of a customer-encrypted kubeconfig secret, and the sweep's own Kubernetes group.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { statusAlarmNamePrefix } from '../../infra/constructs/status-check-alarms.js';
import { statusAlarmPrefix } from '../../lib/adapters/aws-cloudwatch/index.js';
import { synth } from '../support/synth.js';

const VPC = {
  vpcId: 'vpc-0123456789abcdef0',
  subnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'],
};
const EKS = { name: 'prod', eks: {} };
const KEY_ARN = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SECRET = {
  name: 'edge',
  kubeconfigSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:edge-kubeconfig-AbCdEf',
  kubeconfigSecretKmsKeyArn: KEY_ARN,
};

type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = (t: Template, type: string): [string, Resource][] =>
  Object.entries(t.findResources(type)) as [string, Resource][];
const functionsOf = (t: Template) => resources(t, 'AWS::Lambda::Function');
const named = (t: Template, part: string) => functionsOf(t).find(([id]) => id.includes(part))?.[1];
const policiesOfRole = (t: Template, rolePart: string): string =>
  JSON.stringify(
    resources(t, 'AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(rolePart)),
  );

describe('VPC placement', () => {
  const { template } = synth([{ ...EKS, vpc: VPC, statusCheckAlarms: {} }]);

  it('puts every function in the configured subnets with a security group that allows only HTTPS out', () => {
    const fns = functionsOf(template);
    expect(fns).toHaveLength(6);
    for (const [, fn] of fns) {
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: VPC.subnetIds,
        SecurityGroupIds: [
          { 'Fn::GetAtt': [expect.stringMatching(/^ClusterprodPlacementFunctions/), 'GroupId'] },
        ],
      });
    }
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      VpcId: VPC.vpcId,
      SecurityGroupEgress: [
        Match.objectLike({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 }),
      ],
    });
    expect(JSON.stringify(template.findResources('AWS::EC2::SecurityGroupIngress'))).toBe('{}');
  });

  it('lets Lambda create the functions’ network interfaces only in those subnets and security group', () => {
    const policy = policiesOfRole(template, 'Clusterprodstep');
    for (const subnet of VPC.subnetIds) expect(policy).toContain(`:subnet/${subnet}`);
    expect(policy).toContain('ec2:CreateNetworkInterface');
    expect(policy).toContain(':network-interface/*');
    expect(policy).not.toContain('AWSLambdaVPCAccessExecutionRole');
  });

  it('uses the security groups it is given, creating none', () => {
    const given = synth([{ ...EKS, vpc: { ...VPC, securityGroupIds: ['sg-0123456789abcdef0'] } }]).template;

    given.resourceCountIs('AWS::EC2::SecurityGroup', 0);
    given.allResourcesProperties('AWS::Lambda::Function', {
      VpcConfig: { SubnetIds: VPC.subnetIds, SecurityGroupIds: ['sg-0123456789abcdef0'] },
    });
  });

  it('places nothing in a VPC unless asked', () => {
    for (const [, fn] of functionsOf(synth([EKS]).template)) expect(fn.Properties.VpcConfig).toBeUndefined();
  });

  it('opens the API server’s own port when it is not 443', () => {
    synth([{ ...EKS, vpc: { ...VPC, apiServerPort: 6443 } }]).template.hasResourceProperties(
      'AWS::EC2::SecurityGroup',
      { SecurityGroupEgress: Match.arrayWith([Match.objectLike({ FromPort: 6443, ToPort: 6443 })]) },
    );
  });
});

describe('no lost trigger', () => {
  const { template } = synth([{ ...EKS, statusCheckAlarms: {} }]);
  const configs = resources(template, 'AWS::Lambda::EventInvokeConfig').map(([, r]) => r.Properties);
  const queue = () =>
    resources(template, 'AWS::SQS::Queue').find(([id]) => id.startsWith('FailedInvocations'))?.[0] ?? '';

  it('sends every asynchronous invocation that failed after two retries to the failure queue', () => {
    expect(
      configs.map((c) => (c.FunctionName as { Ref: string }).Ref.replace(/Function.*$/, '')).sort(),
    ).toEqual([
      'ClusterprodalarmsyncFunction'.replace(/Function.*$/, ''),
      'Clusterprodeventrouter',
      'Clusterprodhealthcheck',
      'Clusterprodmanual',
      'Clusterprodsweep',
    ]);
    for (const c of configs) {
      expect(c).toMatchObject({
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 6 * 3600,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queue(), 'Arn'] } } },
      });
    }
  });

  it('lets the functions send to that queue, and nothing more on it', () => {
    const sends = resources(template, 'AWS::IAM::Policy')
      .flatMap(
        ([, p]) =>
          (p.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }).Statement,
      )
      .filter((s) => JSON.stringify(s.Resource).includes(queue()));
    expect(sends.length).toBe(5);
    for (const s of sends) expect(s.Action).toBe('sqs:SendMessage');
  });

  it('gives the step function none: Step Functions invokes it synchronously and retries it itself', () => {
    expect(configs.some((c) => JSON.stringify(c.FunctionName).includes('Clusterprodstep'))).toBe(false);
  });

  it('alarms as soon as one failed invocation is in the queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'KubeFencer-FailedInvocations',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue(), 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });
});

describe('bounded concurrency', () => {
  it('reserves the router’s concurrency and one execution for each scheduled function', () => {
    const { template } = synth([{ ...EKS, router: { concurrency: 3 }, statusCheckAlarms: {} }]);

    expect(named(template, 'eventrouter')?.Properties.ReservedConcurrentExecutions).toBe(3);
    for (const fn of ['healthcheck', 'sweep', 'alarmsync']) {
      expect(named(template, fn)?.Properties.ReservedConcurrentExecutions).toBe(1);
    }
    for (const fn of ['step', 'manual'])
      expect(named(template, fn)?.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('passes the per-event cap to the triggers', () => {
    const { template } = synth([{ ...EKS, router: { maxRunsPerEvent: 25 } }]);

    expect(named(template, 'eventrouter')?.Properties.Environment).toMatchObject({
      Variables: { FENCER_MAX_RUNS_PER_EVENT: '25' },
    });
  });

  it('reserves nothing in an account that cannot (reserveConcurrency: false)', () => {
    for (const [, fn] of functionsOf(synth([{ ...EKS, reserveConcurrency: false }]).template)) {
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  it('alarms when the health check stops completing, missing data included', () => {
    synth([EKS]).template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'KubeFencer-prod-HealthCheckNotRunning',
      MetricName: 'HealthChecks',
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
      EvaluationPeriods: 3,
    });
  });
});

describe('standing storage fences', () => {
  it('alarms when a sweep finds a fence whose recorded Ceph entries are gone or could not be kept', () => {
    synth([EKS]).template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'KubeFencer-prod-StorageFenceAtRisk',
      MetricName: 'StorageFencesAtRisk',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
  });
});

describe('status-check alarms (opt-in)', () => {
  const { template } = synth([{ ...EKS, statusCheckAlarms: { everyMinutes: 10, evaluationMinutes: 3 } }]);

  it('runs the alarm keeper on its schedule with the evaluation it was given', () => {
    expect(named(template, 'alarmsync')?.Properties.Environment).toMatchObject({
      Variables: { FENCER_STATUS_ALARM_EVALUATION_MINUTES: '3' },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(10 minutes)',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ClusterprodalarmsyncFunction'), 'Arn'] },
        }),
      ],
    });
  });

  it('may write only this cluster’s alarms, by their name prefix', () => {
    const policy = JSON.parse(policiesOfRole(template, 'Clusterprodalarmsync')) as [string, Resource][];
    const statements = policy.flatMap(
      ([, p]) =>
        (p.Properties.PolicyDocument as { Statement: { Sid?: string; Resource: unknown }[] }).Statement,
    );
    expect(statements.find((s) => s.Sid === 'OwnStatusAlarms')?.Resource).toBe(
      'arn:aws:cloudwatch:us-east-1:123456789012:alarm:kube-fencer-prod-status-*',
    );
  });

  it('names alarms the way the adapter lists them', () => {
    expect(statusAlarmNamePrefix('prod')).toBe(statusAlarmPrefix('prod'));
  });

  it('is absent unless asked for', () => {
    expect(named(synth([EKS]).template, 'alarmsync')).toBeUndefined();
  });
});

describe('the small ones', () => {
  it('logs the workflow under /aws/vendedlogs/states/, encrypted, kept', () => {
    const { template } = synth([EKS]);

    template.hasResource('AWS::Logs::LogGroup', {
      Properties: {
        LogGroupName: '/aws/vendedlogs/states/KubeFencer-prod',
        KmsKeyId: Match.anyValue(),
        RetentionInDays: 90,
      },
      DeletionPolicy: 'Retain',
    });
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: Match.objectLike({
        Destinations: [
          {
            CloudWatchLogsLogGroup: {
              LogGroupArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ClusterprodWorkflowLogs'), 'Arn'] },
            },
          },
        ],
      }),
    });
  });

  it('may decrypt a kubeconfig secret under a customer-managed key, through Secrets Manager only', () => {
    const { template } = synth([SECRET]);
    const decrypts = resources(template, 'AWS::IAM::Policy')
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
      .filter((s) => JSON.stringify(s.Action).includes('kms:Decrypt') && s.Resource === KEY_ARN);

    expect(decrypts).toHaveLength(5);
    for (const s of decrypts) {
      expect(s.Condition).toEqual({
        StringEquals: { 'kms:ViaService': 'secretsmanager.us-east-1.amazonaws.com' },
      });
    }
  });

  it('refuses a key without the secret it would decrypt', () => {
    expect(() => synth([{ ...EKS, kubeconfigSecretKmsKeyArn: KEY_ARN }])).toThrow(
      /belongs with kubeconfigSecretArn/,
    );
  });

  it('runs every function with source maps applied to its stack traces', () => {
    synth([EKS]).template.allResourcesProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ NODE_OPTIONS: '--enable-source-maps' }) },
    });
  });

  it('maps a remediating sweep to the fencer’s group and the group that deletes VolumeAttachments', () => {
    const remediating = synth([{ ...EKS, sweep: { remediate: true } }]).template;
    const sweepEntry = resources(remediating, 'AWS::EKS::AccessEntry').find(([id]) =>
      id.includes('SweepAccess'),
    );

    expect(sweepEntry?.[1].Properties.KubernetesGroups).toEqual([
      'kube-fencer',
      'kube-fencer-delete-volumeattachments',
    ]);
  });

  it('lets the step function delete VolumeAttachments only when its strategy is legacy', () => {
    const stepGroups = (template: ReturnType<typeof synth>['template']) =>
      resources(template, 'AWS::EKS::AccessEntry').find(([id]) => id.includes('StepAccess'))?.[1].Properties
        .KubernetesGroups;

    expect(stepGroups(synth([EKS]).template)).toEqual(['kube-fencer']);
    expect(stepGroups(synth([{ ...EKS, requestDefaults: { strategy: 'legacy' } }]).template)).toEqual([
      'kube-fencer',
      'kube-fencer-delete-volumeattachments',
    ]);
  });
});
