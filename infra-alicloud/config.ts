/**
 * The Alibaba Cloud stack's configuration: a JSON file naming the clusters to fence, each in its
 * region (one ROS stack per region). The cluster's shape (request defaults, schedules, bounds) is the
 * AWS stack's (lib/config/cluster-shape.ts); only access, placement and ownership are Alibaba's own.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { sharedClusterFields } from '../lib/config/cluster-shape.js';
import { requestDefaultsSchema } from '../lib/config/lambda-settings.js';

const region = z
  .string()
  .regex(/^[a-z]{2}-[a-z0-9]+(?:-[a-z0-9]+)*$/, 'expected a region id such as cn-hangzhou');
/** KMS secret and OOS parameter names, as both services allow them. */
const secretName = z.string().regex(/^[A-Za-z0-9_/.-]{1,192}$/, 'not a secret or parameter name');

/**
 * Where the functions run in a VPC: needed for a private ACK API server endpoint. The vSwitches need a
 * route to the ECS, KMS (or OOS) and Function Compute endpoints (VPC endpoints or a NAT gateway).
 */
export const alibabaVpcSchema = z
  .object({
    vpcId: z.string().regex(/^vpc-[a-z0-9]{8,32}$/, 'not a VPC id'),
    vSwitchIds: z
      .array(z.string().regex(/^vsw-[a-z0-9]{8,32}$/, 'not a vSwitch id'))
      .min(1)
      .max(5),
    securityGroupId: z.string().regex(/^sg-[a-z0-9]{8,32}$/, 'not a security group id'),
  })
  .strict();

export const alibabaClusterSchema = z
  .object({
    ...sharedClusterFields,
    region,
    /** The kubeconfig, from exactly one of: a KMS Secrets Manager secret, an OOS encrypted parameter. */
    kubeconfig: z.union([
      z.object({ kmsSecret: secretName }).strict(),
      z.object({ oosParameter: secretName }).strict(),
    ]),
    /** @default no VPC: the API server's public endpoint */
    vpc: alibabaVpcSchema.optional(),
    /**
     * The tag key whose value on an instance must equal the cluster's name for it to be the cluster's
     * (the ECS fencer's FENCER_ECS_CLUSTER_TAG_KEY). @default `ack.aliyun.com` = name, or
     * `kubernetes.io/cluster/<name>` = `owned` | `shared`
     */
    clusterTagKey: z.string().min(1).max(128).optional(),
    /** E-mail addresses the alerts notify (SLS alerting). @default none: the alerts show in the SLS console */
    alertEmails: z.array(z.email()).max(10).default([]),
  })
  .strict()
  .transform((c) => ({
    ...c,
    // Same defaults as the functions apply, checked at synth time rather than at the first fencing.
    requestDefaults: requestDefaultsSchema.parse({ ...c.requestDefaults, allowTerminate: c.allowTerminate }),
  }));
export type AlibabaClusterConfig = z.infer<typeof alibabaClusterSchema>;

export const alibabaClustersSchema = z
  .array(alibabaClusterSchema)
  .min(1)
  .refine((cs) => new Set(cs.map((c) => c.name)).size === cs.length, {
    message: 'cluster names must be unique',
  });

/** The clusters, grouped by region: one stack each. */
export function clustersByRegion(
  clusters: readonly AlibabaClusterConfig[],
): Map<string, AlibabaClusterConfig[]> {
  const byRegion = new Map<string, AlibabaClusterConfig[]>();
  for (const c of clusters) byRegion.set(c.region, [...(byRegion.get(c.region) ?? []), c]);
  return byRegion;
}

/** Reads and validates the clusters file; a bad file is one error naming every problem. */
export function readAlibabaClusters(path: string): AlibabaClusterConfig[] {
  return alibabaClustersSchema.parse(JSON.parse(readFileSync(path, 'utf8')) as unknown);
}
