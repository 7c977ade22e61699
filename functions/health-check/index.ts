/** The scheduled health check: fences nodes NotReady too long that still hold ReadWriteOnce volumes. */
import { type HealthCheckReport, healthCheck } from '../../lib/app/triggers/health-check.js';
import { controlPlaneLabelsFromEnv } from '../../lib/config/control-plane-labels.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { scheduledEventSchema } from '../../lib/config/scheduled-event.js';
import { telemetry } from '../shared/connection.js';
import { fencerHandler } from '../shared/handler.js';
import { settings, triggerDeps, triggerSettings } from '../shared/trigger-runtime.js';

/** The cluster's own control-plane labels, read once per instance, as the step reads them. */
const controlPlaneLabels = controlPlaneLabelsFromEnv(process.env);

export const handler = fencerHandler(
  telemetry,
  {
    parse: (event) => parseOrThrow(scheduledEventSchema, event, 'scheduled event'),
    heartbeat: 'HealthChecks',
    keys: ({ id }) => ({ eventId: id }),
  },
  async ({ id }): Promise<HealthCheckReport> => {
    const { notReadyThresholdSeconds } = settings;
    return healthCheck(
      await triggerDeps(),
      { ...triggerSettings, notReadyThresholdSeconds, controlPlaneLabels },
      id,
    );
  },
);
