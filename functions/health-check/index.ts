/** The scheduled health check: fences nodes NotReady too long that still hold ReadWriteOnce volumes. */
import middy from '@middy/core';
import { type HealthCheckReport, healthCheck } from '../../lib/app/health-check.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { scheduledEventSchema } from '../../lib/config/scheduled-event.js';
import { settings, triggerDeps, triggerSettings } from '../shared/trigger-runtime.js';

export const handler = middy(async (event: unknown): Promise<HealthCheckReport> => {
  const { id } = parseOrThrow(scheduledEventSchema, event, 'scheduled event');
  const { notReadyThresholdSeconds } = settings;
  return healthCheck(await triggerDeps(), { ...triggerSettings, notReadyThresholdSeconds }, id);
});
