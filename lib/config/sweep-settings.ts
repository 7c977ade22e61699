/**
 * The scheduled sweep's settings, from environment variables beside the shared ones of
 * lambda-settings.ts (cluster, access, region). Parsed once at cold start into a sweep request.
 */
import * as z from 'zod';
import type { SweepRequest } from '../domain/sweep/request.js';
import type { LambdaSettings } from './lambda-settings.js';
import { parseSweepRequest } from './sweep-request.js';

/** The sweep's own environment variable names. */
export const SWEEP_ENV = {
  remediate: 'FENCER_SWEEP_REMEDIATE',
  dryRun: 'FENCER_SWEEP_DRY_RUN',
  notReadySeconds: 'FENCER_SWEEP_NOT_READY_SECONDS',
  stuckDeletingSeconds: 'FENCER_SWEEP_STUCK_DELETING_SECONDS',
  attachErrorSeconds: 'FENCER_SWEEP_ATTACH_ERROR_SECONDS',
  maxProviderCalls: 'FENCER_SWEEP_MAX_PROVIDER_CALLS',
} as const;

const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');
const optionalInt = z.coerce.number().int().optional();

/** The sweep request every scheduled sweep runs; throws a ZodError naming every problem. */
export function parseSweepSettings(
  env: Readonly<Record<string, string | undefined>>,
  settings: Pick<LambdaSettings, 'cluster' | 'requestDefaults'>,
): SweepRequest {
  const num = (key: string) => optionalInt.parse(env[key]);
  const { maxUnhealthyNodes, maxUnhealthyFraction } = settings.requestDefaults.limits;
  const thresholds = Object.fromEntries(
    (['notReadySeconds', 'stuckDeletingSeconds', 'attachErrorSeconds'] as const)
      .map((k) => [k, num(SWEEP_ENV[k])])
      .filter(([, v]) => v !== undefined),
  );
  const maxProviderCalls = num(SWEEP_ENV.maxProviderCalls);
  return parseSweepRequest({
    cluster: settings.cluster,
    remediate: flag.parse(env[SWEEP_ENV.remediate]),
    dryRun: flag.parse(env[SWEEP_ENV.dryRun]),
    thresholds,
    limits: { maxUnhealthyNodes, maxUnhealthyFraction },
    ...(maxProviderCalls === undefined ? {} : { maxProviderCalls }),
  });
}
