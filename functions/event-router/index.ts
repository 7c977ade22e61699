/**
 * EventBridge → fencing runs: EC2 status-check alarms, AWS Health EC2 issues, EC2 instances that
 * stopped or terminated, and the project's own `Node Unreachable` event.
 */
import { failIfStartsFailed, routeTrigger, type TriggerOutcome } from '../../lib/app/triggers/index.js';
import { parseEvent } from '../../lib/config/events.js';
import { telemetry } from '../shared/connection.js';
import { eventIdOf, fencerHandler } from '../shared/handler.js';
import { triggerDeps, triggerSettings } from '../shared/trigger-runtime.js';

/**
 * Returns what became of each node the event named, or why the event was rejected. Fails when a run
 * could not be started, after trying every node: Lambda delivers the event again (run names are
 * deterministic, so the runs already started are found, not doubled), then to the failure queue.
 */
export const handler = fencerHandler(
  telemetry,
  { parse: parseEvent, heartbeat: 'EventsRouted', keys: (_trigger, raw) => eventIdOf(raw) },
  async (trigger): Promise<{ outcomes: readonly TriggerOutcome[] }> => {
    const outcomes = await routeTrigger(await triggerDeps(), triggerSettings, trigger);
    failIfStartsFailed(outcomes);
    return { outcomes };
  },
);
