/**
 * The Lambda functions' settings, from environment variables, parsed once at cold start. The CDK stack
 * sets them (infra/constructs/fencer-function.ts); a test sets them to point at the lab.
 */
import * as z from 'zod';
import { DEFAULT_MAX_RUNS_PER_EVENT } from '../app/triggers/trigger-types.js';
import { clusterName, fenceRequestSchema } from './fence-request.js';

/** Runs one event may start: at least one, and few enough that an event never starts a fleet's worth. */
export const maxRunsPerEventSchema = z.coerce.number().int().min(1).max(1000);

/** The environment variable names: the CDK stack and the handlers share them. */
export const ENV = {
  cluster: 'FENCER_CLUSTER',
  access: 'FENCER_CLUSTER_ACCESS',
  eksClusterName: 'FENCER_EKS_CLUSTER_NAME',
  kubeconfigSecretArn: 'FENCER_KUBECONFIG_SECRET_ARN',
  kubeconfigPath: 'FENCER_KUBECONFIG_PATH',
  accountId: 'FENCER_ACCOUNT_ID',
  stateMachineArn: 'FENCER_STATE_MACHINE_ARN',
  requestDefaults: 'FENCER_REQUEST_DEFAULTS',
  notReadyThresholdSeconds: 'FENCER_NOT_READY_THRESHOLD_SECONDS',
  maxRunsPerEvent: 'FENCER_MAX_RUNS_PER_EVENT',
  logLevel: 'POWERTOOLS_LOG_LEVEL',
} as const;

/** How a function reaches the cluster's API server. */
export const ClusterAccess = {
  /** EKS with IAM: a token from a presigned STS GetCallerIdentity. */
  Eks: 'eks',
  /** A kubeconfig stored in Secrets Manager (any cluster). */
  KubeconfigSecret: 'kubeconfig-secret',
  /** A kubeconfig file (local runs, the lab). */
  KubeconfigFile: 'kubeconfig-file',
} as const;
export type ClusterAccess = (typeof ClusterAccess)[keyof typeof ClusterAccess];

const accessSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal(ClusterAccess.Eks), eksClusterName: z.string().min(1).max(100) }),
  z.object({
    kind: z.literal(ClusterAccess.KubeconfigSecret),
    secretArn: z.string().max(2048).startsWith('arn:'),
  }),
  z.object({ kind: z.literal(ClusterAccess.KubeconfigFile), path: z.string().min(1).max(4096) }),
]);
export type ClusterAccessSettings = z.infer<typeof accessSchema>;

/** A fence request without its target: what the triggers fill in for every run. */
export const requestDefaultsSchema = fenceRequestSchema.omit({ node: true, cluster: true });

const fromJson = z
  .string()
  .max(16_384)
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
  });

/** `FENCER_REQUEST_DEFAULTS` as every long-lived deployment takes it: JSON text of a request without its target. */
export const requestDefaultsJson = fromJson.pipe(requestDefaultsSchema);

export interface LambdaSettings {
  readonly cluster: string;
  readonly region: string;
  readonly accountId?: string;
  readonly access: ClusterAccessSettings;
  readonly stateMachineArn?: string;
  readonly requestDefaults: z.infer<typeof requestDefaultsSchema>;
  readonly notReadyThresholdSeconds: number;
  /** Runs one event may start (lib/app/triggers/route-trigger.ts). */
  readonly maxRunsPerEvent: number;
}

const region = z
  .string()
  .max(32)
  .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'not an AWS region');

/** Parses the environment; throws a ZodError naming every problem, so a misconfigured function fails at cold start. */
export function parseLambdaSettings(env: Readonly<Record<string, string | undefined>>): LambdaSettings {
  const kind = env[ENV.access] ?? ClusterAccess.Eks;
  const access = accessSchema.parse({
    kind,
    eksClusterName: env[ENV.eksClusterName] ?? env[ENV.cluster],
    secretArn: env[ENV.kubeconfigSecretArn],
    path: env[ENV.kubeconfigPath],
  });
  const defaults = env[ENV.requestDefaults] ?? '{}';
  return {
    cluster: clusterName.parse(env[ENV.cluster]),
    region: region.parse(env.AWS_REGION ?? env.AWS_DEFAULT_REGION),
    ...(env[ENV.accountId]
      ? {
          accountId: z
            .string()
            .regex(/^\d{12}$/)
            .parse(env[ENV.accountId]),
        }
      : {}),
    access,
    ...(env[ENV.stateMachineArn]
      ? { stateMachineArn: z.string().max(2048).startsWith('arn:').parse(env[ENV.stateMachineArn]) }
      : {}),
    requestDefaults: requestDefaultsJson.parse(defaults),
    notReadyThresholdSeconds: z.coerce
      .number()
      .int()
      .min(30)
      .max(86_400)
      .parse(env[ENV.notReadyThresholdSeconds] ?? 180),
    maxRunsPerEvent: maxRunsPerEventSchema.parse(env[ENV.maxRunsPerEvent] ?? DEFAULT_MAX_RUNS_PER_EVENT),
  };
}
