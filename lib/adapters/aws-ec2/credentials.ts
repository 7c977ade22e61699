/**
 * The AWS credentials the CLI's EC2 client will use, resolved before the command acts: the SDK's
 * default chain (environment, SSO, web identity, shared files, credential_process, instance or
 * container role), so a missing or expired login is one sentence up front instead of a run that
 * retries a failing EC2 call until its deadline.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { CredentialsError } from '../../domain/access-errors.js';

/** A memoized provider of AWS credentials, as the SDK's clients accept it. */
export type AwsCredentialsProvider = ReturnType<typeof defaultProvider>;

const profileOf = (env: NodeJS.ProcessEnv): string => env.AWS_PROFILE ?? env.AWS_DEFAULT_PROFILE ?? 'default';

/** The sentence for a credentials failure, with the next step for the usual causes. */
export function describeAwsCredentialsFailure(error: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const message = error instanceof Error ? error.message : String(error);
  const profile = profileOf(env);
  if (/sso/i.test(message) && /(expired|invalid|not found|refresh)/i.test(message)) {
    return `the AWS SSO session of profile "${profile}" has expired or is missing: run aws sso login --profile ${profile}`;
  }
  if (/could not load credentials from any providers/i.test(message)) {
    return 'no AWS credentials found (environment, AWS_PROFILE, ~/.aws, SSO, instance role): run aws configure or aws sso login, or set AWS_PROFILE';
  }
  return `cannot get AWS credentials for profile "${profile}": ${message.split('\n')[0]}`;
}

/**
 * Resolves the default chain once and returns it (memoized: the EC2 client reuses what was resolved,
 * and refreshes it as the SDK does). Rejects with a {@link CredentialsError} when nothing resolves.
 */
export async function resolveAwsCredentials(): Promise<AwsCredentialsProvider> {
  const provider = defaultProvider();
  try {
    await provider();
  } catch (error) {
    throw new CredentialsError('aws', describeAwsCredentialsFailure(error), { cause: error });
  }
  return provider;
}
