/**
 * The stack's configuration: the clusters to fence, from CDK context (`cdk.json`, or
 * `-c kube-fencer:clusters='[...]'`), validated like every other input.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { sharedClusterFields } from '../lib/config/cluster-shape.js';
import { requestDefaultsSchema } from '../lib/config/lambda-settings.js';
import { cephConfigSchema, privateMgrUrls } from './ceph-config.js';
import type { KubeFencerClusterProps } from './kube-fencer-props.js';
import { arnOrToken, checkedUnlessToken } from './token-checks.js';

/** The context key holding the clusters. */
export const CLUSTERS_CONTEXT = 'kube-fencer:clusters';
/** The context key of a JSON file holding the clusters (instead of the clusters themselves). */
export const CLUSTERS_FILE_CONTEXT = 'kube-fencer:clustersFile';
/** The context key of an optional e-mail subscribed to the outcomes topic. */
export const EMAIL_CONTEXT = 'kube-fencer:alarmEmail';

const arn = arnOrToken;
const subnetId = checkedUnlessToken(z.string().regex(/^subnet-[0-9a-f]{8,17}$/, 'not a subnet id'));
const securityGroupId = checkedUnlessToken(
  z.string().regex(/^sg-[0-9a-f]{8,17}$/, 'not a security group id'),
);

/**
 * Where the functions run in a VPC: required for a private (or CIDR-restricted) EKS endpoint. The
 * subnets need a route to the AWS APIs the functions call (a NAT gateway, or the VPC endpoints listed
 * in docs/deploy-aws.md). Without `securityGroupIds` the stack creates one that allows HTTPS out only.
 */
export const vpcConfigSchema = z
  .object({
    vpcId: checkedUnlessToken(z.string().regex(/^vpc-[0-9a-f]{8,17}$/, 'not a VPC id')),
    subnetIds: z.array(subnetId).min(1).max(16),
    securityGroupIds: z.array(securityGroupId).min(1).max(5).optional(),
    /** The API server's port, for the created security group's egress rule. @default 443 */
    apiServerPort: z.number().int().min(1).max(65_535).default(443),
  })
  .strict();
export type VpcConfig = z.infer<typeof vpcConfigSchema>;

export const clusterConfigSchema = z
  .object({
    ...sharedClusterFields,
    /** An EKS cluster, reached with IAM. `clusterName` defaults to `name`. */
    eks: z
      .object({
        clusterName: z.string().min(1).max(100).optional(),
        /** With both of these, the stack applies the RBAC manifest itself (kubectl provider). */
        kubectlRoleArn: arn.optional(),
        kubectlLayerArn: arn.optional(),
      })
      .strict()
      .optional(),
    /** Any other cluster: a Secrets Manager secret (complete ARN) holding a kubeconfig. */
    kubeconfigSecretArn: arn.optional(),
    /** The customer-managed KMS key that encrypts that secret, if not the AWS-managed one: kms:Decrypt is granted on it. */
    kubeconfigSecretKmsKeyArn: arn.optional(),
    /** The functions' VPC placement (private API server endpoints). @default no VPC */
    vpc: vpcConfigSchema.optional(),
    /**
     * Reserve the router's, health check's and sweep's concurrency. An account still at Lambda's
     * starting quota (10 concurrent executions) cannot reserve any: set false there, and ask for more.
     */
    reserveConcurrency: z.boolean().default(true),
    /** Opt-in: keep an EC2 status-check alarm per node's instance (infra/constructs/status-check-alarms.ts). */
    statusCheckAlarms: z
      .object({
        everyMinutes: z.number().int().min(1).max(60).default(5),
        /** Minutes StatusCheckFailed_System must be failing before the alarm fires. */
        evaluationMinutes: z.number().int().min(1).max(30).default(2),
      })
      .strict()
      .optional(),
    /**
     * Opt-in: fence the cluster's Ceph RBD volumes at the storage layer (the OSD blocklist through the
     * ceph-mgr `restful` API, infra/ceph-config.ts). Only the step function gets these settings.
     */
    ceph: cephConfigSchema.optional(),
  })
  .strict()
  .refine((c) => (c.eks === undefined) !== (c.kubeconfigSecretArn === undefined), {
    message: 'give exactly one of eks and kubeconfigSecretArn',
  })
  .refine((c) => c.kubeconfigSecretKmsKeyArn === undefined || c.kubeconfigSecretArn !== undefined, {
    message: 'kubeconfigSecretKmsKeyArn belongs with kubeconfigSecretArn',
  })
  .superRefine((c, ctx) => {
    if (!c.ceph || c.vpc) return;
    for (const url of privateMgrUrls(c.ceph)) {
      ctx.addIssue({
        code: 'custom',
        path: ['ceph', 'mgrUrls'],
        message: `the mgr at ${url} has a private address, which a function outside a VPC cannot reach: give the cluster a vpc whose subnets route to it (docs/deploy-aws.md, "Deploying with Ceph RBD")`,
      });
    }
  })
  .transform((c) => ({
    ...c,
    // Same defaults as the functions apply, checked at synth time rather than at the first fencing.
    requestDefaults: requestDefaultsSchema.parse({ ...c.requestDefaults, allowTerminate: c.allowTerminate }),
  }));
export type ClusterConfig = z.infer<typeof clusterConfigSchema>;

export const clustersSchema = z
  .array(clusterConfigSchema)
  .min(1)
  .refine((cs) => new Set(cs.map((c) => c.name)).size === cs.length, {
    message: 'cluster names must be unique',
  });

/**
 * Validates the clusters and fills in their defaults; throws an error naming every field that is wrong
 * (`clusters[0].vpc.vpcId: not a VPC id`).
 */
export function parseClusters(clusters: unknown): ClusterConfig[] {
  const parsed = clustersSchema.safeParse(clusters);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => {
    const [index, ...rest] = i.path.map(String);
    const where = index === undefined ? 'clusters' : `clusters[${index}]${rest.map((p) => `.${p}`).join('')}`;
    return `${where}: ${i.message}`;
  });
  throw new Error(`invalid kube-fencer cluster settings: ${issues.join('; ')}`);
}

/** The clusters of a context value: a JSON string (from `-c`) or the object in cdk.json, checked. */
function clustersOf(context: unknown): KubeFencerClusterProps[] {
  const value = typeof context === 'string' ? (JSON.parse(context) as unknown) : context;
  parseClusters(value); // fails here, before any construct, naming the field
  return value as KubeFencerClusterProps[];
}

/**
 * The clusters of a deployment, from `kube-fencer:clusters` (the JSON itself) or
 * `kube-fencer:clustersFile` (a JSON file, relative to the working directory). Neither is a clear
 * error: a stack never deploys a cluster nobody named.
 */
export function clustersFromContext(tryGetContext: (key: string) => unknown): KubeFencerClusterProps[] {
  const inline = tryGetContext(CLUSTERS_CONTEXT);
  const file = tryGetContext(CLUSTERS_FILE_CONTEXT);
  if (inline !== undefined && file !== undefined) {
    throw new Error(`give ${CLUSTERS_CONTEXT} or ${CLUSTERS_FILE_CONTEXT}, not both`);
  }
  if (typeof file === 'string') return clustersOf(JSON.parse(readFileSync(file, 'utf8')) as unknown);
  if (inline === undefined) {
    throw new Error(
      `no clusters to fence: pass -c ${CLUSTERS_FILE_CONTEXT}=clusters.json (see deploy/clusters.example.json and docs/deploy-aws.md "Deploying from an empty account")`,
    );
  }
  return clustersOf(inline);
}
