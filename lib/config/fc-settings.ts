/**
 * The Function Compute functions' settings, from environment variables, parsed once at cold start.
 * The ROS stack sets them (infra-alicloud/constructs/fencer-function.ts); a test sets them to point at
 * the lab. Names shared with the Lambda functions keep their meaning (lib/config/lambda-settings.ts).
 */
import * as z from 'zod';
import { clusterName } from './fence-request.js';
import { ENV, requestDefaultsSchema } from './lambda-settings.js';

/** The Function Compute functions' own environment variable names. */
export const FC_ENV = {
  cluster: ENV.cluster,
  requestDefaults: ENV.requestDefaults,
  notReadyThresholdSeconds: ENV.notReadyThresholdSeconds,
  kubeconfigPath: ENV.kubeconfigPath,
  access: ENV.access,
  /** KMS Secrets Manager: the name of the secret holding the kubeconfig. */
  kubeconfigSecret: 'FENCER_KUBECONFIG_SECRET',
  /** OOS: the name of the encrypted (secret) parameter holding the kubeconfig. */
  kubeconfigParameter: 'FENCER_KUBECONFIG_PARAMETER',
  /** `host[:port]` or URL of KMS / OOS instead of the regional public endpoint (VPC endpoint, the lab). */
  kmsEndpoint: 'FENCER_KMS_ENDPOINT',
  oosEndpoint: 'FENCER_OOS_ENDPOINT',
  /** The fencing run function the triggers invoke asynchronously. */
  runFunction: 'FENCER_RUN_FUNCTION',
  /** `host[:port]` or URL of the Function Compute API (default `<account>.<region>.fc.aliyuncs.com`). */
  fcEndpoint: 'FENCER_FC_ENDPOINT',
  /** How long one attempt of a fencing run may take: shorter than the run function's timeout. */
  runTimeoutSeconds: 'FENCER_RUN_TIMEOUT_SECONDS',
  logLevel: 'FENCER_LOG_LEVEL',
  /** Set by Function Compute itself. */
  region: 'FC_REGION',
  accountId: 'FC_ACCOUNT_ID',
  functionName: 'FC_FUNCTION_NAME',
} as const;

/** How a function gets the kubeconfig of the cluster it fences. */
export const FcClusterAccess = {
  /** A KMS Secrets Manager secret (GetSecretValue). */
  KmsSecret: 'kms-secret',
  /** An OOS encrypted parameter (GetSecretParameter with decryption). */
  OosParameter: 'oos-parameter',
  /** A file in the function's file system (a NAS mount, a local run, the lab). */
  KubeconfigFile: 'kubeconfig-file',
} as const;
export type FcClusterAccess = (typeof FcClusterAccess)[keyof typeof FcClusterAccess];

/** KMS secret and OOS parameter names: letters, digits and `_/.-`, as both services allow. */
const secretName = z.string().regex(/^[A-Za-z0-9_/.-]{1,192}$/, 'not a secret or parameter name');
const endpoint = z.string().min(1).max(256);

const accessSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal(FcClusterAccess.KmsSecret), name: secretName, endpoint: endpoint.optional() }),
  z.object({
    kind: z.literal(FcClusterAccess.OosParameter),
    name: secretName,
    endpoint: endpoint.optional(),
  }),
  z.object({ kind: z.literal(FcClusterAccess.KubeconfigFile), path: z.string().min(1) }),
]);
export type FcClusterAccessSettings = z.infer<typeof accessSchema>;

const region = z
  .string()
  .regex(/^[a-z]{2}-[a-z0-9]+(?:-[a-z0-9]+)*$/, 'expected a region id such as cn-hangzhou');
const functionName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,127}$/, 'not a Function Compute function name');

const fromJson = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not JSON' });
    return z.NEVER;
  }
});

/** Everything a Function Compute function of the fencer needs to know, parsed from its environment. */
export interface FcSettings {
  readonly cluster: string;
  readonly region: string;
  readonly accountId?: string;
  readonly access: FcClusterAccessSettings;
  /** Absent in the run function itself, which starts no runs. */
  readonly runFunction?: string;
  readonly fcEndpoint?: string;
  readonly requestDefaults: z.infer<typeof requestDefaultsSchema>;
  readonly notReadyThresholdSeconds: number;
  readonly runTimeoutSeconds: number;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
}

/** The default budget of one attempt of a run: FC's async invocations may run up to 24 hours. */
export const DEFAULT_RUN_TIMEOUT_SECONDS = 45 * 60;

/** Parses the environment; throws a ZodError naming every problem, so a misconfigured function fails at cold start. */
export function parseFcSettings(env: Readonly<Record<string, string | undefined>>): FcSettings {
  const get = (key: string) => (env[key] === '' ? undefined : env[key]);
  const kind = get(FC_ENV.access) ?? FcClusterAccess.KmsSecret;
  const access = accessSchema.parse({
    kind,
    name:
      kind === FcClusterAccess.OosParameter ? get(FC_ENV.kubeconfigParameter) : get(FC_ENV.kubeconfigSecret),
    endpoint: kind === FcClusterAccess.OosParameter ? get(FC_ENV.oosEndpoint) : get(FC_ENV.kmsEndpoint),
    path: get(FC_ENV.kubeconfigPath),
  });
  const accountId = get(FC_ENV.accountId);
  const runFunction = get(FC_ENV.runFunction);
  const fcEndpoint = get(FC_ENV.fcEndpoint);
  return {
    cluster: clusterName.parse(get(FC_ENV.cluster)),
    region: region.parse(get(FC_ENV.region) ?? get('ALIBABA_CLOUD_REGION')),
    ...(accountId
      ? {
          accountId: z
            .string()
            .regex(/^\d{1,32}$/)
            .parse(accountId),
        }
      : {}),
    access,
    ...(runFunction ? { runFunction: functionName.parse(runFunction) } : {}),
    ...(fcEndpoint ? { fcEndpoint: endpoint.parse(fcEndpoint) } : {}),
    requestDefaults: fromJson.pipe(requestDefaultsSchema).parse(get(FC_ENV.requestDefaults) ?? '{}'),
    notReadyThresholdSeconds: z.coerce
      .number()
      .int()
      .min(30)
      .max(86_400)
      .parse(get(FC_ENV.notReadyThresholdSeconds) ?? 180),
    runTimeoutSeconds: z.coerce
      .number()
      .int()
      .min(60)
      .max(86_000)
      .parse(get(FC_ENV.runTimeoutSeconds) ?? DEFAULT_RUN_TIMEOUT_SECONDS),
    logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).parse(get(FC_ENV.logLevel) ?? 'INFO'),
  };
}
