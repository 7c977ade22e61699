import { EC2Client, type EC2ClientConfig } from '@aws-sdk/client-ec2';

/**
 * Retry and timeout defaults for the fencer's EC2 client. Retries are the SDK's own: `adaptive`
 * backs off exponentially with jitter on throttling and transient (5xx, network, timeout) errors
 * and also rate-limits the client after throttling, which matters when a sweep fans out.
 */
export const EC2_CLIENT_DEFAULTS = {
  maxAttempts: 5,
  retryMode: 'adaptive',
  // A fencing step has a deadline: a hung connection must fail (and be retried), not wait forever.
  requestHandler: { connectionTimeout: 3_000, requestTimeout: 15_000 },
} as const satisfies Partial<EC2ClientConfig>;

/**
 * Builds the EC2 client the fencer uses when none is injected. `overrides` win, e.g. an
 * `endpoint` and static `credentials` for the lab's emulator, or a `retryStrategy` in tests.
 */
export const createEc2Client = (region: string, overrides: Partial<EC2ClientConfig> = {}): EC2Client =>
  new EC2Client({ ...EC2_CLIENT_DEFAULTS, region, ...overrides });
