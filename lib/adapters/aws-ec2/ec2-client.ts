import { EC2Client, type EC2ClientConfig } from '@aws-sdk/client-ec2';

/**
 * Retry and timeout defaults for the fencer's EC2 client. Retries are the SDK's own `standard` mode
 * (exponential backoff with jitter on throttling and transient errors): its delays are bounded, so one
 * call's worst case is known and stays within a fencing step's budget; `adaptive` mode may also hold a
 * request back in its client-side rate limiter, for a time nobody bounds. Three attempts: a step that
 * still fails is retried by the workflow from a fresh observation, which is safe (SAFETY.md rule 7).
 * test/infra/timeouts.test.ts checks attempts × (connection + request timeout) + backoff against the
 * step function's timeout.
 */
export const EC2_CLIENT_DEFAULTS = {
  maxAttempts: 3,
  retryMode: 'standard',
  // A fencing step has a deadline: a hung connection must fail (and be retried), not wait forever.
  requestHandler: { connectionTimeout: 2_000, requestTimeout: 8_000 },
} as const satisfies Partial<EC2ClientConfig>;

/**
 * Builds the EC2 client the fencer uses when none is injected. `overrides` win, e.g. an
 * `endpoint` and static `credentials` for the lab's emulator, or a `retryStrategy` in tests.
 */
export const createEc2Client = (region: string, overrides: Partial<EC2ClientConfig> = {}): EC2Client =>
  new EC2Client({ ...EC2_CLIENT_DEFAULTS, region, ...overrides });
