/**
 * The RAM policies of the functions' roles, least privilege: a trigger reads nothing from ECS (it maps
 * instances to nodes by providerID) and may only start and read the run function's tasks; the run
 * function describes instances and disks (Describe calls take no resource-level permission in RAM, so
 * their resource is `*`) and may stop only instances carrying the cluster's ownership tag; every
 * function reads its one kubeconfig secret and writes its one logstore.
 */
import * as ros from '@alicloud/ros-cdk-core';
import type { AlibabaClusterConfig } from '../config.js';

/** One statement of a RAM policy document (ROS CDK's casing: it renders the keys capitalised). */
export interface Statement {
  readonly effect: 'Allow';
  readonly action: readonly string[];
  readonly resource: readonly (string | ros.IResolvable)[];
  readonly condition?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

/** `acs:<service>:<region>:<account>:<resource>` for this stack's region and account. */
export const acs = (service: string, resource: string): string =>
  ros.Fn.join(':', ['acs', service, ros.RosPseudo.region, ros.RosPseudo.accountId, resource]) as string;

/** The ECS reads the fencer makes (lib/adapters/alicloud-ecs/sdk.ts ECS_OPERATIONS, minus the stop). */
export const ECS_READS = ['ecs:DescribeInstances', 'ecs:DescribeInstanceAttribute', 'ecs:DescribeDisks'];
/** The one ECS write: a forced stop, of the cluster's instances only. */
export const ECS_STOPS = ['ecs:StopInstance', 'ecs:StopInstances'];

export const ecsRead = (): Statement => ({ effect: 'Allow', action: ECS_READS, resource: ['*'] });

/** The tags that make an instance the cluster's, as the ECS fencer judges them (its ownership check). */
export const ownershipTags = (cluster: AlibabaClusterConfig): Record<string, string[]>[] =>
  cluster.clusterTagKey
    ? [{ [`acs:ResourceTag/${cluster.clusterTagKey}`]: [cluster.name] }]
    : [
        { 'acs:ResourceTag/ack.aliyun.com': [cluster.name] },
        { [`acs:ResourceTag/kubernetes.io/cluster/${cluster.name}`]: ['owned', 'shared'] },
      ];

/**
 * Stops only on instances tagged as the cluster's: one statement per accepted tag (a statement's
 * conditions all hold at once; either tag will do). The keys are literal: ROS refuses a token there.
 */
export const ecsStops = (cluster: AlibabaClusterConfig): Statement[] =>
  ownershipTags(cluster).map((tag) => ({
    effect: 'Allow',
    action: ECS_STOPS,
    resource: [acs('ecs', 'instance/*')],
    condition: { StringEquals: tag },
  }));

/** Reading the kubeconfig: the one KMS secret, or the one OOS parameter (and the KMS decryption it needs). */
export function kubeconfigRead(cluster: AlibabaClusterConfig): Statement[] {
  if ('kmsSecret' in cluster.kubeconfig) {
    return [
      {
        effect: 'Allow',
        action: ['kms:GetSecretValue'],
        resource: [acs('kms', `secret/${cluster.kubeconfig.kmsSecret}`)],
      },
    ];
  }
  return [
    {
      effect: 'Allow',
      action: ['oos:GetSecretParameter'],
      resource: [acs('oos', `secretparameter/${cluster.kubeconfig.oosParameter}`)],
    },
    // OOS decrypts the parameter with the caller's rights on its KMS key.
    { effect: 'Allow', action: ['kms:Decrypt'], resource: [acs('kms', 'key/*')] },
  ];
}

/** Starting the run function's asynchronous tasks and reading them (the duplicate check). */
export const startRuns = (runFunction: string): Statement => ({
  effect: 'Allow',
  action: ['fc:InvokeFunction', 'fc:GetAsyncTask'],
  resource: [acs('fc', `functions/${runFunction}`)],
});

/** A function's logs: its own logstore only. */
export const writeLogs = (project: string, logstore: string): Statement => ({
  effect: 'Allow',
  action: ['log:PostLogStoreLogs'],
  resource: [acs('log', `project/${project}/logstore/${logstore}`)],
});

/** A RAM policy document. */
export const policyDocument = (statements: readonly Statement[]) => ({
  version: '1',
  statement: [...statements] as unknown as Array<Record<string, unknown>>,
});

/**
 * A logical id: ROS CDK names a resource by its own id alone (not its path), so every id in a stack
 * carries its cluster and function, in letters and digits only.
 */
export const logicalId = (...parts: readonly string[]): string =>
  parts
    .flatMap((p) => p.split(/[^A-Za-z0-9]+/))
    .filter((w) => w !== '')
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join('');
