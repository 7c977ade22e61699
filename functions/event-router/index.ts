/**
 * EventBridge → fencing runs: EC2 status-check alarms, AWS Health EC2 issues, EC2 instances that
 * stopped or terminated, and the project's own `Node Unreachable` event.
 */
import middy from '@middy/core';
import { routeTrigger, type TriggerOutcome } from '../../lib/app/triggers.js';
import { parseEvent } from '../../lib/config/events.js';
import { triggerDeps, triggerSettings } from '../shared/trigger-runtime.js';

/** Returns what became of each node the event named, or why the event was rejected. */
export const handler = middy(async (event: unknown): Promise<{ outcomes: readonly TriggerOutcome[] }> => {
  const outcomes = await routeTrigger(await triggerDeps(), triggerSettings, parseEvent(event));
  return { outcomes };
});
