/** cdk-nag (AwsSolutions pack): no unacknowledged finding, and a written reason on every acknowledgment. */
import { readFileSync } from 'node:fs';
import { Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { synth } from '../support/synth.js';

const CEPH_CA = readFileSync(new URL('./fixtures/ceph-restful.crt', import.meta.url), 'utf8');
const cephWithKeyIn = (keySecret: unknown) => ({
  mgrUrls: ['https://10.0.0.5:8003/'],
  keyName: 'kube-fencer',
  keySecret,
  caPem: CEPH_CA,
});
const PRIVATE_VPC = { vpcId: 'vpc-0123456789abcdef0', subnetIds: ['subnet-0123456789abcdef0'] };

const configurations = {
  'an EKS cluster': [{ name: 'prod', eks: {} }],
  'a kubeconfig-secret cluster that may terminate, its secret under a customer key': [
    {
      name: 'edge',
      kubeconfigSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:kc-AbCdEf',
      kubeconfigSecretKmsKeyArn:
        'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      allowTerminate: true,
    },
  ],
  'a private EKS cluster with status-check alarms and a remediating sweep': [
    {
      name: 'private',
      eks: {},
      vpc: { vpcId: 'vpc-0123456789abcdef0', subnetIds: ['subnet-0123456789abcdef0'] },
      statusCheckAlarms: {},
      sweep: { remediate: true },
    },
  ],
  'a private EKS cluster fencing Ceph RBD, its key in a secret named': [
    { name: 'prod', eks: {}, vpc: PRIVATE_VPC, ceph: cephWithKeyIn({ name: 'prod/ceph-restful-key' }) },
  ],
  'a kubeconfig-secret cluster fencing Ceph RBD, its key in a secret the stack creates': [
    {
      name: 'edge',
      kubeconfigSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:kc-AbCdEf',
      vpc: PRIVATE_VPC,
      ceph: cephWithKeyIn({ create: true }),
    },
  ],
  'an EKS cluster whose RBAC the stack applies': [
    {
      name: 'prod',
      eks: {
        kubectlRoleArn: 'arn:aws:iam::123456789012:role/kubectl',
        kubectlLayerArn: 'arn:aws:lambda:us-east-1:123456789012:layer:kubectl:1',
      },
    },
  ],
};

const acknowledgments = (root: IConstruct) =>
  root.node
    .findAll()
    .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
    .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({ id, reason })));

describe('cdk-nag AwsSolutions', () => {
  it.each(Object.entries(configurations))('reports no unacknowledged finding for %s', (_name, clusters) => {
    const { stack } = synth(clusters);

    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack);

    expect(
      report.violations.map(
        (v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
      ),
    ).toEqual([]);
    expect(report.success).toBe(true);
  });

  it.each(Object.entries(configurations))(
    'leaves no CDK warning or error on the stack for %s',
    (_name, clusters) => {
      const annotations = Annotations.fromStack(synth(clusters).stack);

      expect(annotations.findError('*', Match.anyValue())).toEqual([]);
      expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
    },
  );

  it('gives every acknowledgment a reason of substance', () => {
    const { stack } = synth(configurations['an EKS cluster whose RBAC the stack applies']);

    const acks = acknowledgments(stack);
    expect(acks.length).toBeGreaterThan(5);
    for (const ack of acks) expect(ack.reason.length, ack.id).toBeGreaterThan(40);
  });

  it('still finds what it should: a wildcard action would be reported', async () => {
    const { Stack } = await import('aws-cdk-lib');
    const iam = await import('aws-cdk-lib/aws-iam');
    const { stack } = synth(configurations['an EKS cluster']);
    const probe = new Stack(stack.node.scope as never, 'Probe');
    new iam.Role(probe, 'R', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') }).addToPolicy(
      new iam.PolicyStatement({ actions: ['ec2:*'], resources: ['*'] }),
    );

    const report = new AwsSolutionsChecks(undefined, {}).validateScope(probe);

    expect(report.violations.map((v) => v.ruleName)).toContain('AwsSolutions-IAM5[Action::ec2:*]');
  });
});
