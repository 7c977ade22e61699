/**
 * Fencing from the scheduled sweep starts a Step Functions run per node, through the same trigger path
 * (deterministic run names, so a node already being fenced is never started twice). Loaded only when
 * remediation is on: the trigger runtime needs FENCER_STATE_MACHINE_ARN.
 */
import type { FencingStarter } from '../../lib/app/sweep/index.js';

export async function stepFunctionsStarter(eventId: string): Promise<FencingStarter> {
  const [{ sweepFencingStarter }, { triggerDeps, triggerSettings }] = await Promise.all([
    import('../../lib/app/triggers/sweep-starter.js'),
    import('../shared/trigger-runtime.js'),
  ]);
  return sweepFencingStarter(await triggerDeps(), triggerSettings, eventId);
}
