/**
 * The fencer's IAM, least privilege: each function gets what its code calls, on the narrowest
 * resource, and the power-off only on instances tagged as the cluster's.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secrets from 'aws-cdk-lib/aws-secretsmanager';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { ClusterConfig } from '../config.js';
import type { FencerFunction } from './fencer-function.js';

/** ec2:StopInstances (and TerminateInstances, if allowed) only on instances tagged as the cluster's. */
export function grantPowerOff(role: iam.IRole, cluster: ClusterConfig): void {
  const stack = Stack.of(role);
  const instances = stack.formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' });
  const owned = {
    StringEquals: { [`aws:ResourceTag/kubernetes.io/cluster/${cluster.name}`]: ['owned', 'shared'] },
  };
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ObserveInstances',
      actions: ['ec2:DescribeInstances', 'ec2:DescribeVolumes', 'ec2:DescribeSpotInstanceRequests'],
      resources: ['*'],
    }),
  );
  const actions = ['ec2:StopInstances', ...(cluster.allowTerminate ? ['ec2:TerminateInstances'] : [])];
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'PowerOffOwnedInstances',
      actions,
      resources: [instances],
      conditions: owned,
    }),
  );
}

/** The sweep's provider cross-check: read-only EC2 (these Describe actions support no resource scoping). */
export function grantObserveInstances(role: iam.IRole): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ObserveInstances',
      actions: ['ec2:DescribeInstances', 'ec2:DescribeVolumes'],
      resources: ['*'],
    }),
  );
}

/** StartExecution on this cluster's workflow; DescribeExecution to tell a duplicate from a retry. */
export function grantStartRuns(role: iam.IRole, stateMachine: sfn.StateMachine): void {
  stateMachine.grantStartExecution(role);
  const executions = Stack.of(stateMachine).formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${stateMachine.stateMachineName}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['states:DescribeExecution'], resources: [executions] }),
  );
}

/**
 * eks:DescribeCluster on the EKS cluster, or read access to the kubeconfig secret, and kms:Decrypt (through
 * Secrets Manager only) on the customer-managed key that encrypts it, if one does.
 */
export function grantClusterAccess(
  fn: FencerFunction,
  cluster: ClusterConfig,
  eksName: string | undefined,
): void {
  if (eksName) {
    const arn = Stack.of(fn).formatArn({ service: 'eks', resource: 'cluster', resourceName: eksName });
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['eks:DescribeCluster'], resources: [arn] }),
    );
  } else if (cluster.kubeconfigSecretArn) {
    secrets.Secret.fromSecretCompleteArn(fn, 'Kubeconfig', cluster.kubeconfigSecretArn).grantRead(fn.role);
    const keyArn = cluster.kubeconfigSecretKmsKeyArn;
    if (keyArn) {
      // Explicit: CDK's grant on an imported key adds nothing when it cannot tell the accounts apart.
      fn.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'DecryptKubeconfigSecret',
          actions: ['kms:Decrypt'],
          resources: [keyArn],
          conditions: {
            StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(fn).region}.amazonaws.com` },
          },
        }),
      );
    }
  }
}
