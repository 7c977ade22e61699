import type { EcsCredentials } from './ecs-client.js';
import { EcsConfigError } from './errors.js';

/** The environment variables Alibaba's tools and Function Compute use for a key pair or an STS token. */
export const ALIBABA_CREDENTIAL_ENV = {
  accessKeyId: 'ALIBABA_CLOUD_ACCESS_KEY_ID',
  accessKeySecret: 'ALIBABA_CLOUD_ACCESS_KEY_SECRET',
  securityToken: 'ALIBABA_CLOUD_SECURITY_TOKEN',
} as const;

/**
 * Credentials from `ALIBABA_CLOUD_ACCESS_KEY_ID/SECRET` and, for STS, `ALIBABA_CLOUD_SECURITY_TOKEN`.
 * `undefined` when none is set; an error when only half a key pair is, since that is a mistake, not a choice.
 */
export function ecsCredentialsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): EcsCredentials | undefined {
  const accessKeyId = env[ALIBABA_CREDENTIAL_ENV.accessKeyId]?.trim() || undefined;
  const accessKeySecret = env[ALIBABA_CREDENTIAL_ENV.accessKeySecret]?.trim() || undefined;
  const securityToken = env[ALIBABA_CREDENTIAL_ENV.securityToken]?.trim() || undefined;
  if (!accessKeyId && !accessKeySecret && !securityToken) return undefined;
  if (!accessKeyId || !accessKeySecret) {
    const missing = accessKeyId ? ALIBABA_CREDENTIAL_ENV.accessKeySecret : ALIBABA_CREDENTIAL_ENV.accessKeyId;
    throw new EcsConfigError(`Alibaba Cloud credentials are incomplete: ${missing} is not set`);
  }
  return { accessKeyId, accessKeySecret, ...(securityToken ? { securityToken } : {}) };
}

/** The role credentials Function Compute hands a handler in `context.credentials` (an STS token). */
export interface FunctionComputeCredentials {
  readonly accessKeyId?: string;
  readonly accessKeySecret?: string;
  readonly securityToken?: string;
}

/** Credentials from a Function Compute invocation context; its role's STS token is required. */
export function ecsCredentialsFromFunctionCompute(credentials: FunctionComputeCredentials): EcsCredentials {
  const { accessKeyId, accessKeySecret, securityToken } = credentials;
  if (!accessKeyId || !accessKeySecret || !securityToken) {
    throw new EcsConfigError(
      'the Function Compute context carries no complete role credentials (is a RAM role attached to the function?)',
    );
  }
  return { accessKeyId, accessKeySecret, securityToken };
}
