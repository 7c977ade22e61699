/** The manual invoke: the same request as `fencer fence`, started as a Step Functions run. */
import { failIfStartsFailed, routeTrigger, type TriggerOutcome } from '../../lib/app/triggers/index.js';
import { fenceRequestSchema } from '../../lib/config/fence-request.js';
import { manualTrigger } from '../../lib/config/manual.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { telemetry } from '../shared/connection.js';
import { fencerHandler } from '../shared/handler.js';
import { triggerDeps, triggerSettings } from '../shared/trigger-runtime.js';

/** Returns the run started (or the one that already exists), or why none was; fails when the start failed. */
export const handler = fencerHandler(
  telemetry,
  {
    parse: (event) => parseOrThrow(fenceRequestSchema, event, 'fence request'),
    heartbeat: 'ManualRequests',
    keys: (request) => ({ node: request.node }),
  },
  async (request, context): Promise<TriggerOutcome | undefined> => {
    const outcomes = await routeTrigger(
      await triggerDeps(),
      triggerSettings,
      manualTrigger(request, context.awsRequestId),
    );
    failIfStartsFailed(outcomes);
    return outcomes[0];
  },
);
