/**
 * Fencing from a remediating sweep: one run per node it names, under the trigger path's deterministic
 * names, so a sweep and any other trigger for the same outage start one run between them.
 */
import { TriggerSource } from '../../ports/workflow.js';
import type { FencingStarter } from '../sweep/remediate.js';
import { startForNode } from './start-for-node.js';
import type { TriggerDeps, TriggerSettings } from './trigger-types.js';

export function sweepFencingStarter(
  deps: TriggerDeps,
  settings: TriggerSettings,
  eventId: string,
): FencingStarter {
  return {
    async start(nodeName, detail) {
      const node = await deps.cluster.getNode(nodeName);
      if (!node) return { status: 'skipped', reason: 'NodeNotFound', detail: `node ${nodeName} is gone` };
      const fence = { ...settings.requestDefaults, node: nodeName, cluster: settings.cluster };
      const origin = { source: TriggerSource.Sweep, eventId: `sweep:${eventId}`, detail: `sweep: ${detail}` };
      const outcome = await startForNode(deps, fence, node, origin);
      return outcome.result === 'rejected'
        ? { status: 'refused', reason: outcome.reason, detail: outcome.detail }
        : { status: 'done', detail: `fencing run ${outcome.runName}: ${outcome.result}` };
    },
  };
}
