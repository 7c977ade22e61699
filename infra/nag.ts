/**
 * cdk-nag (AwsSolutions) acknowledgments. cdk-nag 3 reports each finding separately
 * (`Rule[finding]`), so every acknowledgment names one finding and says why it is safe.
 */
import { type CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { ClusterFencer } from './constructs/cluster-fencer.js';

const ack = (scope: IConstruct, id: string, reason: string) =>
  Validations.of(scope).acknowledge({ id, reason });

/** The logical id of a construct's CloudFormation resource, as cdk-nag prints it. */
const logicalId = (scope: IConstruct): string =>
  Stack.of(scope).getLogicalId(scope.node.defaultChild as CfnElement);

/** The partition as cdk-nag prints it: a literal when the stack's region is known (partition literals), or the pseudo parameter. */
const partition = (scope: IConstruct): string => {
  const p = Stack.of(scope).partition;
  return Token.isUnresolved(p) ? '<AWS::Partition>' : p;
};

/** `<region>:<account>` as cdk-nag prints it in a finding: the literal, or the pseudo parameter. */
const regionAccount = (scope: IConstruct): string => {
  const { region, account } = Stack.of(scope);
  return `${Token.isUnresolved(region) ? '<AWS::Region>' : region}:${Token.isUnresolved(account) ? '<AWS::AccountId>' : account}`;
};

const XRAY =
  'X-Ray PutTraceSegments/PutTelemetryRecords (Lambda active tracing) support no resource-level permissions.';

/** Acknowledges the findings of one cluster's fencer. */
export function acknowledgeClusterFindings(fencer: ClusterFencer): void {
  for (const fn of fencer.functions) {
    ack(
      fn,
      'AwsSolutions-L1',
      'Node.js 22 is pinned on purpose: it is the runtime the tests and bench/cold-start.ts run on (package.json engines). A newer runtime is a tested change, not a default.',
    );
    if (fencer.placement) {
      ack(
        fn,
        `AwsSolutions-IAM5[Resource::arn:${partition(fencer)}:ec2:${regionAccount(fencer)}:network-interface/*]`,
        'Lambda creates and deletes the function’s network interfaces in the VPC with its role; their ids are made at run time. Creation is limited to the configured subnets and security groups; ec2:DescribeNetworkInterfaces and DescribeSubnets support no resource-level permissions.',
      );
    }
  }
  if (fencer.statusCheckAlarms) {
    const fn = fencer.statusCheckAlarms.function;
    ack(fn, 'AwsSolutions-IAM5[Resource::*]', XRAY);
    ack(
      fn,
      `AwsSolutions-IAM5[Resource::arn:${partition(fencer)}:cloudwatch:${regionAccount(fencer)}:alarm:kube-fencer-${fencer.cluster}-status-*]`,
      'The alarms of this cluster only, by their name prefix; one alarm per node instance, whose ids are known only at run time.',
    );
  }
  ack(
    fencer.sweep,
    'AwsSolutions-IAM5[Resource::*]',
    `${XRAY} ec2:DescribeInstances and ec2:DescribeVolumes (the sweep's cross-check) support no resource-level permissions either; they only read.`,
  );
  const starters = [fencer.router, fencer.healthCheck, fencer.manual];
  if (fencer.sweepStartsRuns) starters.push(fencer.sweep);
  for (const fn of starters) {
    if (fn !== fencer.sweep) ack(fn, 'AwsSolutions-IAM5[Resource::*]', XRAY);
    ack(
      fn,
      `AwsSolutions-IAM5[Resource::arn:${partition(fencer)}:states:${regionAccount(fencer)}:execution:<${logicalId(fencer.workflow.stateMachine)}.Name>:*]`,
      'DescribeExecution on the executions of this cluster’s own state machine only; execution names are made at run time (a duplicate trigger must find the run it duplicates).',
    );
  }
  ack(
    fencer.step,
    'AwsSolutions-IAM5[Resource::*]',
    `${XRAY} ec2:DescribeInstances, ec2:DescribeVolumes and ec2:DescribeSpotInstanceRequests support no resource-level permissions either; they only read.`,
  );
  ack(
    fencer.step,
    `AwsSolutions-IAM5[Resource::arn:${partition(fencer)}:ec2:${regionAccount(fencer)}:instance/*]`,
    'ec2:StopInstances (and TerminateInstances when allowed) is limited by the aws:ResourceTag/kubernetes.io/cluster/<name> condition to the instances of this cluster; their ids are not known at deploy time.',
  );
  if (fencer.cephKey?.created) {
    ack(
      fencer.cephKey.secret,
      'AwsSolutions-SMG4',
      'A Ceph restful key is made by Ceph (`ceph restful create-key`), not by Secrets Manager: no rotation function can make one. It is rotated by hand (docs/deploy-aws.md, "Deploying with Ceph RBD"); the step function and the sweep read it at each cold start.',
    );
  }
  if (fencer.kubectlProvider) acknowledgeKubectlProvider(fencer.kubectlProvider);
  const sm = fencer.workflow.stateMachine;
  ack(
    sm,
    'AwsSolutions-IAM5[Resource::*]',
    `${XRAY} CloudWatch Logs delivery for Step Functions (logs:CreateLogDelivery and friends) supports no resource-level permissions.`,
  );
  ack(
    sm,
    `AwsSolutions-IAM5[Resource::<${logicalId(fencer.step.function)}.Arn>:*]`,
    'The grant to invoke the step function includes its versions and aliases (CDK LambdaInvoke); the Task calls the unqualified function.',
  );
}

/** The aws-eks kubectl provider: the library's own Lambda functions, run only at deploy time. */
function acknowledgeKubectlProvider(provider: IConstruct): void {
  const reason =
    'aws-eks kubectl provider (applies deploy/rbac.yaml at deploy time): its functions, roles and runtime are set by aws-cdk-lib, not by this project.';
  for (const id of [
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly]',
    'AwsSolutions-IAM4[Policy::{"Fn::If":["HandlerHasEcrPublic195AF58A",{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},":iam::aws:policy/AmazonElasticContainerRegistryPublicReadOnly"]]},{"Ref":"AWS::NoValue"}]}]',
    'AwsSolutions-L1',
    'AwsSolutions-IAM5[Resource::<Handler886CB40B.Arn>:*]',
  ]) {
    ack(provider, id, reason);
  }
}

/** Acknowledges the stack-level findings. */
export function acknowledgeStackFindings(deadLetterQueue: IConstruct, failedInvocations: IConstruct): void {
  ack(
    deadLetterQueue,
    'AwsSolutions-SQS3',
    'This queue is itself the dead-letter queue of the EventBridge rule targets.',
  );
  ack(
    failedInvocations,
    'AwsSolutions-SQS3',
    'This queue is itself the on-failure destination of the functions’ asynchronous invocations; its messages are read by a human (RUNBOOK.md), not consumed.',
  );
}
