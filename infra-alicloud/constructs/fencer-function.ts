/**
 * One function of the fencer on Function Compute 3.0, with every default in one place: the nodejs20
 * runtime and the bundle's handler, code from the OSS object its zip was uploaded as, its own RAM role
 * (trusting Function Compute only), logs to the stack's logstore, and the cluster's VPC placement.
 */
import * as ros from '@alicloud/ros-cdk-core';
import * as fc from '@alicloud/ros-cdk-fc3';
import * as ram from '@alicloud/ros-cdk-ram';
import { FC_HANDLER, FC_RUNTIME, type FcFunctionName } from '../bundling.js';
import type { AlibabaClusterConfig } from '../config.js';
import { logicalId, policyDocument, type Statement, writeLogs } from './policies.js';

export interface FencerFunctionProps {
  readonly cluster: AlibabaClusterConfig;
  readonly name: FcFunctionName;
  readonly description: string;
  readonly codeBucket: string;
  readonly codeObject: string;
  readonly logProject: string;
  readonly logstore: string;
  readonly timeoutSeconds: number;
  readonly environment: Readonly<Record<string, string>>;
  /** The role's statements besides writing its logs. */
  readonly statements: readonly Statement[];
  /** @default 512 */
  readonly memoryMb?: number;
}

/** The function's name in Function Compute: `kube-fencer-<cluster>-<function>`. */
export const functionNameOf = (cluster: string, name: FcFunctionName): string =>
  `kube-fencer-${cluster}-${name}`;

export class FencerFunction extends ros.Construct {
  readonly functionName: string;
  readonly function: fc.Function;
  readonly role: ram.Role;

  constructor(scope: ros.Construct, id: string, props: FencerFunctionProps) {
    super(scope, id);
    const { cluster, name } = props;
    this.functionName = functionNameOf(cluster.name, name);
    this.role = new ram.Role(this, logicalId(cluster.name, name, 'Role'), {
      // RAM role names: at most 64 characters.
      roleName: `kf-${cluster.name}-${name}-${cluster.region}`.slice(0, 64),
      description: `kube-fencer ${name} for cluster ${cluster.name}`,
      assumeRolePolicyDocument: {
        version: '1',
        statement: [
          { action: 'sts:AssumeRole', effect: 'Allow', principal: { service: ['fc.aliyuncs.com'] } },
        ],
      },
      policies: [
        {
          policyName: `kf-${cluster.name}-${name}`.slice(0, 128),
          policyDocument: policyDocument([writeLogs(props.logProject, props.logstore), ...props.statements]),
        },
      ],
    });
    this.function = new fc.Function(this, logicalId(cluster.name, name, 'Function'), {
      functionName: this.functionName,
      description: props.description,
      runtime: FC_RUNTIME,
      handler: FC_HANDLER,
      code: { ossBucketName: props.codeBucket, ossObjectName: props.codeObject },
      role: this.role.attrArn,
      timeout: props.timeoutSeconds,
      memorySize: props.memoryMb ?? 512,
      cpu: 0.35,
      diskSize: 512,
      instanceConcurrency: 1,
      environmentVariables: { ...props.environment },
      logConfig: {
        project: props.logProject,
        logstore: props.logstore,
        enableRequestMetrics: true,
        enableInstanceMetrics: false,
        logBeginRule: 'None',
      },
      ...(cluster.vpc
        ? {
            vpcConfig: {
              vpcId: cluster.vpc.vpcId,
              vSwitchIds: cluster.vpc.vSwitchIds,
              securityGroupId: cluster.vpc.securityGroupId,
            },
            internetAccess: false,
          }
        : { internetAccess: true }),
    });
    this.function.addDependency(this.role);
  }
}
