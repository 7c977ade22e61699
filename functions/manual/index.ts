/** The manual invoke: the same request as `fencer fence`, started as a Step Functions run. */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { routeTrigger, type TriggerOutcome } from '../../lib/app/triggers.js';
import { fenceRequestSchema } from '../../lib/config/fence-request.js';
import { manualTrigger } from '../../lib/config/manual.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { triggerDeps, triggerSettings } from '../shared/trigger-runtime.js';

/** Returns the run started (or the one that already exists), or why none was. */
export const handler = middy(
  async (event: unknown, context: Context): Promise<TriggerOutcome | undefined> => {
    const request = parseOrThrow(fenceRequestSchema, event, 'fence request');
    const [outcome] = await routeTrigger(
      await triggerDeps(),
      triggerSettings,
      manualTrigger(request, context.awsRequestId),
    );
    return outcome;
  },
);
