/**
 * The stack's configuration: the clusters to fence, from CDK context (`cdk.json`, or
 * `-c kube-fencer:clusters='[...]'`), validated like every other input.
 */
import * as z from 'zod';
import { clusterName } from '../lib/config/fence-request.js';
import { requestDefaultsSchema } from '../lib/config/lambda-settings.js';

/** The context key holding the clusters. */
export const CLUSTERS_CONTEXT = 'kube-fencer:clusters';
/** The context key of an optional e-mail subscribed to the outcomes topic. */
export const EMAIL_CONTEXT = 'kube-fencer:alarmEmail';

const arn = z.string().startsWith('arn:');

export const clusterConfigSchema = z
  .object({
    /** The cluster name, as in the instances' `kubernetes.io/cluster/<name>` tag. */
    name: clusterName,
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
    /** Allow terminating instances that cannot be stopped (one-time Spot); grants ec2:TerminateInstances. */
    allowTerminate: z.boolean().default(false),
    /** The fence request every trigger sends, minus node and cluster (lib/config/fence-request.ts). */
    requestDefaults: z.record(z.string(), z.unknown()).default({}),
    healthCheck: z
      .object({
        everyMinutes: z.number().int().min(1).max(60).default(1),
        notReadyThresholdSeconds: z.number().int().min(30).max(86_400).default(180),
      })
      .strict()
      .default({ everyMinutes: 1, notReadyThresholdSeconds: 180 }),
    /** The scheduled sweep of zombie VolumeAttachments: report-only unless `remediate`. */
    sweep: z
      .object({
        everyMinutes: z.number().int().min(1).max(1440).default(15),
        remediate: z.boolean().default(false),
      })
      .strict()
      .default({ everyMinutes: 15, remediate: false }),
    maxSteps: z.number().int().min(10).max(2000).default(360),
    timeoutMinutes: z.number().int().min(5).max(1440).default(45),
  })
  .strict()
  .refine((c) => (c.eks === undefined) !== (c.kubeconfigSecretArn === undefined), {
    message: 'give exactly one of eks and kubeconfigSecretArn',
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

/** Parses the clusters from context: a JSON string (from `-c`) or the object in cdk.json. */
export function parseClusters(context: unknown): ClusterConfig[] {
  const value = typeof context === 'string' ? (JSON.parse(context) as unknown) : context;
  return clustersSchema.parse(value);
}
