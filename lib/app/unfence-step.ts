import { decideUnfence } from '../domain/decide.js';
import type { RunHistory } from '../domain/history.js';
import type { UnfenceRequest } from '../domain/request.js';
import { perform } from './act.js';
import { audit } from './audit.js';
import type { FencerDeps } from './deps.js';
import { CLAIM_TTL_SECONDS } from './fence-step.js';
import { observe } from './observe.js';
import { type StepDecision, stepDecision } from './outcome.js';

export interface UnfenceStepState {
  readonly request: UnfenceRequest;
  readonly history: RunHistory;
  readonly decision: StepDecision | null;
}

/**
 * One step of an un-fence run: observe, decideUnfence() (remove only the fencer's own taint, only
 * once the node is Ready and its instance was started after the fence), perform, audit.
 */
export async function unfenceStep(deps: FencerDeps, state: UnfenceStepState): Promise<UnfenceStepState> {
  const started = Date.now();
  const { request, history } = state;
  const { observation, fencer } = await observe(deps, request.node, request.cluster, CLAIM_TTL_SECONDS);
  const decision = decideUnfence(observation, request, history);
  const actionResult = decision.action ? await perform(deps, decision.action, fencer) : null;
  const next = stepDecision(observation.observedAt, decision, actionResult, started);
  await audit(deps, request.node, state.decision, next);
  return { request, history: decision.history, decision: next };
}
