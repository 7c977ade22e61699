/** The manual invoke: the same request as `fencer fence`, started as a fencing run (an async task). */
import { failIfStartsFailed, routeTrigger, type TriggerOutcome } from '../../lib/app/triggers/index.js';
import { fenceRequestSchema } from '../../lib/config/fence-request.js';
import { manualTrigger } from '../../lib/config/manual.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { fcHandler } from '../shared/fc-context.js';
import { settings, telemetry, triggerDeps, triggerSettings } from '../shared/runtime.js';

/** Returns the run started (or the one that already exists), or why none was; fails when the start failed. */
export const handler = fcHandler(
  telemetry,
  settings.cluster,
  async (event, context, credentials): Promise<TriggerOutcome | undefined> => {
    const request = parseOrThrow(fenceRequestSchema, event, 'fence request');
    const trigger = manualTrigger(request, context.requestId);
    const outcomes = await routeTrigger(await triggerDeps(credentials), triggerSettings, trigger);
    failIfStartsFailed(outcomes);
    return outcomes[0];
  },
);
