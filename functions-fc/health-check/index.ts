/** The timer's health check: fences nodes NotReady too long that still hold ReadWriteOnce volumes. */
import { type HealthCheckReport, healthCheck } from '../../lib/app/triggers/health-check.js';
import { fcTimerEventSchema, timerEventId } from '../../lib/config/alibaba-events.js';
import { controlPlaneLabelsFromEnv } from '../../lib/config/control-plane-labels.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { fcHandler } from '../shared/fc-context.js';
import { settings, telemetry, triggerDeps, triggerSettings } from '../shared/runtime.js';

/** The cluster's own control-plane labels, read once per instance, as the step reads them. */
const controlPlaneLabels = controlPlaneLabelsFromEnv(process.env);

export const handler = fcHandler(
  telemetry,
  settings.cluster,
  async (event, _context, credentials): Promise<HealthCheckReport> => {
    const timer = parseOrThrow(fcTimerEventSchema, event, 'timer event');
    const { notReadyThresholdSeconds } = settings;
    return healthCheck(
      await triggerDeps(credentials),
      { ...triggerSettings, notReadyThresholdSeconds, controlPlaneLabels },
      timerEventId(timer),
    );
  },
);
