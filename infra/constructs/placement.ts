/**
 * Where the functions of one cluster run in a VPC: the configured subnets, and the configured security
 * groups or one made for them that allows only HTTPS (and the API server's port) out. Everything is
 * named by id: no lookup, so the stack synthesizes offline.
 */
import { Annotations, CfnOutput, Fn } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import type { MgrEndpoint } from '../ceph-config.js';
import type { VpcConfig } from '../config.js';
import type { FunctionPlacement } from './fencer-function.js';

/** The AWS services the functions call from inside the VPC, for interface endpoints (or a NAT gateway). */
export const VPC_ENDPOINT_SERVICES = [
  {
    service: 'ec2',
    for: 'the step function and the sweep: DescribeInstances, DescribeVolumes, StopInstances',
  },
  { service: 'states', for: 'the triggers: StartExecution, DescribeExecution' },
  { service: 'eks', for: 'every function of an EKS cluster: DescribeCluster, once per container' },
  {
    service: 'secretsmanager',
    for: 'every function of a kubeconfig-secret cluster, and the step function and sweep of a Ceph cluster: GetSecretValue',
  },
  { service: 'monitoring', for: 'the status-check alarms function: Put/Describe/DeleteAlarms' },
  { service: 'xray', for: 'active tracing: the trace segments of each invocation' },
] as const;

/** The placement of one cluster's functions. */
export class ClusterPlacement extends Construct implements FunctionPlacement {
  readonly vpc: ec2.IVpc;
  readonly subnets: ec2.ISubnet[];
  readonly securityGroups: ec2.ISecurityGroup[];

  /**
   * @param cephMgrs the Ceph mgrs the step function fences through (and the sweep renews through): the created security group lets
   *   the functions out to each one's port (to its address, when the URL names one).
   */
  constructor(scope: Construct, id: string, config: VpcConfig, cephMgrs: readonly MgrEndpoint[] = []) {
    super(scope, id);
    // The subnets are given explicitly, so the VPC's own zones and subnets are never used to pick any:
    // the warning about zones known only at deploy time does not apply.
    Annotations.of(this).acknowledgeWarning(
      '@aws-cdk/aws-ec2:vpcAttributeIsListTokenavailabilityZones',
      'subnets are selected by id, never by zone',
    );
    this.vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: config.vpcId,
      availabilityZones: Fn.getAzs(),
    });
    this.subnets = config.subnetIds.map((subnetId, i) => {
      const subnet = ec2.Subnet.fromSubnetId(this, `Subnet${i}`, subnetId);
      // The functions only attach to the subnets; nothing reads their route tables.
      Annotations.of(subnet).acknowledgeWarning(
        '@aws-cdk/aws-ec2:noSubnetRouteTableId',
        'the functions attach to the subnets; no route table is read or changed',
      );
      return subnet;
    });
    this.securityGroups = config.securityGroupIds
      ? config.securityGroupIds.map((sg, i) =>
          ec2.SecurityGroup.fromSecurityGroupId(this, `SecurityGroup${i}`, sg, { mutable: false }),
        )
      : [this.ownSecurityGroup(config.apiServerPort, cephMgrs)];
  }

  /**
   * HTTPS out (the AWS APIs, an EKS endpoint), the API server's port if it is another, and each Ceph
   * mgr's port; nothing in.
   */
  private ownSecurityGroup(apiServerPort: number, cephMgrs: readonly MgrEndpoint[]): ec2.SecurityGroup {
    const sg = new ec2.SecurityGroup(this, 'Functions', {
      vpc: this.vpc,
      // Unchanged by Ceph settings: a new description would replace the group, and its ingress grants.
      description: 'kube-fencer functions: HTTPS out to the AWS APIs and the Kubernetes API server',
      allowAllOutbound: false,
    });
    sg.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'AWS APIs and the API server');
    if (apiServerPort !== 443) {
      sg.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(apiServerPort), 'the Kubernetes API server');
    }
    for (const mgr of cephMgrs) {
      // A mgr named by DNS may move: its port is all the group can narrow to (443 is already open).
      if (mgr.ip === undefined && mgr.port === 443) continue;
      const peer =
        mgr.ip === undefined
          ? ec2.Peer.anyIpv4()
          : mgr.ip.includes(':')
            ? ec2.Peer.ipv6(`${mgr.ip}/128`)
            : ec2.Peer.ipv4(`${mgr.ip}/32`);
      sg.addEgressRule(peer, ec2.Port.tcp(mgr.port), `the Ceph mgr's restful API (${mgr.url})`);
    }
    new CfnOutput(this, 'SecurityGroupId', {
      value: sg.securityGroupId,
      description:
        cephMgrs.length > 0
          ? 'Allow this security group in on the API server (EKS: the cluster security group, TCP 443) and on the Ceph mgrs’ restful port'
          : 'Allow this security group in on the API server (EKS: the cluster security group, TCP 443)',
    });
    return sg;
  }
}
