/**
 * Fencing from a remediating sweep, whatever runs the runs (Step Functions, Function Compute, the
 * controller): one run per node it names, under the trigger path's deterministic names, so a sweep and
 * any other trigger for the same outage start one run between them. A start that failed is the sweep's
 * `failed`, never `done`.
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
      switch (outcome.result) {
        case 'rejected':
          return { status: 'refused', reason: outcome.reason, detail: outcome.detail };
        case 'failed':
          return { status: 'failed', reason: 'RunStartFailed', detail: outcome.error };
        default:
          return { status: 'done', detail: `fencing run ${outcome.runName}: ${outcome.result}` };
      }
    },
  };
}
