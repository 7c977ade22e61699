/**
 * The controller's settings from its environment, parsed once at start: the request defaults every
 * run gets (`FENCER_REQUEST_DEFAULTS`, JSON, as the Lambda and Function Compute deployments take them)
 * and the key that seals run checkpoints (`FENCER_CONTROLLER_SEAL_KEY`, the same for every replica).
 */
import { createHmac } from 'node:crypto';
import * as z from 'zod';
import { requestDefaultsJson, type requestDefaultsSchema } from './lambda-settings.js';
import { parseOrThrow } from './parse.js';

export const CONTROLLER_ENV = {
  requestDefaults: 'FENCER_REQUEST_DEFAULTS',
  sealKey: 'FENCER_CONTROLLER_SEAL_KEY',
} as const;

const sealKeySchema = z
  .string({
    error: `${CONTROLLER_ENV.sealKey} is not set: every replica needs the same secret of 32 characters or more`,
  })
  .min(32, `${CONTROLLER_ENV.sealKey} must be at least 32 characters`)
  .max(4096);

export interface ControllerEnv {
  readonly requestDefaults: z.infer<typeof requestDefaultsSchema>;
  /** The seal of one run's checkpoints: derived from the key and the run's name, never written anywhere. */
  readonly sealFor: (runId: string) => string;
}

export function parseControllerEnv(env: Readonly<Record<string, string | undefined>>): ControllerEnv {
  const key = parseOrThrow(sealKeySchema, env[CONTROLLER_ENV.sealKey], CONTROLLER_ENV.sealKey);
  const requestDefaults = parseOrThrow(
    requestDefaultsJson,
    env[CONTROLLER_ENV.requestDefaults] ?? '{}',
    CONTROLLER_ENV.requestDefaults,
  );
  return {
    requestDefaults,
    sealFor: (runId) =>
      createHmac('sha256', key).update(`kube-fencer controller run seal v1\n${runId}`).digest('base64url'),
  };
}
