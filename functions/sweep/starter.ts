/**
 * Fencing from the scheduled sweep starts a Step Functions run per node, through the same trigger path
 * (deterministic run names, so a node already being fenced is never started twice). Loaded only when
 * remediation is on: the trigger runtime needs FENCER_STATE_MACHINE_ARN.
 */
import type { FencingStarter } from '../../lib/app/sweep/index.js';
import { TriggerSource } from '../../lib/ports/workflow.js';

export async function stepFunctionsStarter(eventId: string): Promise<FencingStarter> {
  const [{ startForNode }, { triggerDeps, triggerSettings }] = await Promise.all([
    import('../../lib/app/triggers/index.js'),
    import('../shared/trigger-runtime.js'),
  ]);
  const deps = await triggerDeps();
  return {
    async start(nodeName, detail) {
      const node = await deps.cluster.getNode(nodeName);
      if (!node) return { status: 'skipped', reason: 'NodeNotFound', detail: `node ${nodeName} is gone` };
      const request = {
        ...triggerSettings.requestDefaults,
        node: nodeName,
        cluster: triggerSettings.cluster,
      };
      const origin = {
        source: TriggerSource.Sweep,
        eventId: `sweep:${eventId}`,
        detail: `sweep: ${detail}`,
      };
      const outcome = await startForNode(deps, request, node, origin);
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
