/**
 * Alibaba Cloud EventBridge → fencing runs: ECS instances that stopped or were released while their
 * node holds volumes, ECS system events (host failures, maintenance), and the project's own
 * `kube-fencer:Node:Unreachable`. One event or a batch; each rejection is counted with its reason.
 */
import { failIfStartsFailed, routeTrigger, type TriggerOutcome } from '../../lib/app/triggers/index.js';
import { parseAlibabaEvents } from '../../lib/config/alibaba-events.js';
import { fcHandler } from '../shared/fc-context.js';
import { settings, telemetry, triggerDeps, triggerSettings } from '../shared/runtime.js';

/**
 * Returns what became of each node the events named, or why each event was rejected. Fails when a run
 * could not be started (Function Compute refused the task), after trying every node of the batch:
 * EventBridge delivers the batch again, and the runs already started are found, not doubled (run
 * names are deterministic).
 */
export const handler = fcHandler(telemetry, settings.cluster, async (event, _context, credentials) => {
  const deps = await triggerDeps(credentials);
  const outcomes: TriggerOutcome[] = [];
  // One after another: a duplicate within a batch finds the first one's run.
  for (const parsed of parseAlibabaEvents(event))
    outcomes.push(...(await routeTrigger(deps, triggerSettings, parsed)));
  failIfStartsFailed(outcomes);
  return { outcomes };
});
