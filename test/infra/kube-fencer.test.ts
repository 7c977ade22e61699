/**
 * The `KubeFencer` construct as another CDK app uses it: in a stack of that app's own, beside its own
 * VPC and roles, with typed props whose ids may be tokens, and grants for the people and systems that
 * ask for a fence or listen to the outcomes. Its props are the clusters.json shape (compile-time check
 * below), validated by the same schema at synth.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import type { clusterConfigSchema } from '../../infra/config.js';
import { KubeFencer, type KubeFencerClusterProps } from '../../infra/kube-fencer.js';
import { CDK_JSON_CONTEXT, TEST_ACCOUNT, TEST_REGION } from '../support/synth.js';

/** The clusters.json shape, every level readonly. */
type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
type ClusterInput = DeepReadonly<z.input<typeof clusterConfigSchema>>;
// Every prop is a field clusters.json takes, and every field it takes is a prop (tsc checks both).
const propsAreTheFileShape = (p: KubeFencerClusterProps): ClusterInput => p;
const everyFieldIsAProp: [keyof ClusterInput] extends [keyof KubeFencerClusterProps] ? true : false = true;

/** A consumer's app: its own stack, bundling skipped (the bundles are tested in bundles.test.ts). */
function consumerStack() {
  const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
  return new Stack(app, 'Platform', { env: { account: TEST_ACCOUNT, region: TEST_REGION } });
}

describe('KubeFencer in another app’s stack', () => {
  const stack = consumerStack();
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  const fencer = new KubeFencer(stack, 'Fencer', {
    clusters: [
      {
        name: 'prod',
        eks: {},
        // Attributes of the app's own VPC: tokens until deploy time.
        vpc: { vpcId: vpc.vpcId, subnetIds: vpc.privateSubnets.map((s) => s.subnetId) },
        healthCheck: { notReadyThresholdSeconds: 240 },
      },
      {
        name: 'edge',
        kubeconfigSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:edge-kubeconfig-AbCdEf',
      },
    ],
    alarmEmail: 'oncall@example.com',
  });
  const oncall = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
  const listener = new iam.Role(stack, 'Listener', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
  });
  fencer.grantManualInvoke(oncall, 'prod');
  fencer.grantRuns(oncall, 'prod');
  fencer.grantSubscribeOutcomes(listener);
  const template = Template.fromStack(stack);
  const policyOf = (role: iam.Role) =>
    Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p).includes(stack.getLogicalId(role.node.defaultChild as iam.CfnRole)),
    );

  it('fences each cluster with a workflow and functions of its own', () => {
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 2);
    expect(Object.keys(fencer.clusters).sort()).toEqual(['edge', 'prod']);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ FENCER_NOT_READY_THRESHOLD_SECONDS: '240' }) },
    });
  });

  it('runs prod’s functions in the app’s own VPC subnets, given as tokens', () => {
    const subnets = vpc.privateSubnets.map((s) => stack.resolve(s.subnetId));
    template.hasResourceProperties('AWS::Lambda::Function', {
      VpcConfig: Match.objectLike({ SubnetIds: subnets }),
    });
  });

  it('subscribes the alarm e-mail to the outcomes topic', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: stack.resolve(fencer.outcomes.topicArn),
    });
  });

  it('lets on-call invoke prod’s manual function and start its runs, and nothing of edge', () => {
    const granted = JSON.stringify(policyOf(oncall));
    expect(granted).toContain('lambda:InvokeFunction');
    expect(granted).toContain('states:StartExecution');
    expect(granted).toContain(
      stack.getLogicalId(fencer.clusters.prod?.manual.function.node.defaultChild as never),
    );
    expect(granted).not.toContain(
      stack.getLogicalId(fencer.clusters.edge?.manual.function.node.defaultChild as never),
    );
  });

  it('lets a listener subscribe to the outcomes topic', () => {
    const granted = JSON.stringify(policyOf(listener));
    expect(granted).toContain('sns:Subscribe');
    expect(granted).toContain(stack.getLogicalId(fencer.outcomes.node.defaultChild as never));
  });

  it('says which cluster it does not fence when asked to grant on one', () => {
    expect(() => fencer.grantManualInvoke(oncall, 'staging')).toThrow(
      /no cluster named staging \(it fences prod, edge\)/,
    );
  });
});

describe('KubeFencer’s props', () => {
  it('are the clusters.json shape, field for field (tsc fails this file otherwise)', () => {
    expect(everyFieldIsAProp).toBe(true);
    expect(propsAreTheFileShape({ name: 'prod', eks: {} })).toEqual({ name: 'prod', eks: {} });
  });
});

describe('KubeFencer refuses what the functions would refuse, at synth', () => {
  it('names the field of a literal that is wrong', () => {
    const stack = consumerStack();
    expect(
      () =>
        new KubeFencer(stack, 'Fencer', {
          clusters: [
            { name: 'prod', eks: {}, vpc: { vpcId: 'vpc-x', subnetIds: ['subnet-0123456789abcdef0'] } },
          ],
        }),
    ).toThrow(/clusters\[0\]\.vpc\.vpcId: not a VPC id/);
  });

  it('gives exactly one way into each cluster', () => {
    expect(() => new KubeFencer(consumerStack(), 'Fencer', { clusters: [{ name: 'prod' }] })).toThrow(
      /exactly one of eks and kubeconfigSecretArn/,
    );
  });
});
