import { decideUnfence } from '../../domain/decide.js';
import type { RunHistory } from '../../domain/history.js';
import type { UnfenceRequest } from '../../domain/request.js';
import { CLAIM_TTL_SECONDS } from '../../domain/timing.js';
import { perform } from '../fence/act.js';
import { audit, auditError } from '../fence/audit.js';
import { observe, stepProviderBudgetMs } from '../fence/observe.js';
import { type StepDecision, stepDecision } from '../fence/outcome.js';
import type { FencerDeps } from '../shared/deps.js';

export interface UnfenceStepState {
  readonly request: UnfenceRequest;
  readonly history: RunHistory;
  readonly decision: StepDecision | null;
}

/**
 * One step of an un-fence run: observe, decideUnfence() (remove only the fencer's own taint, only
 * once the node is Ready and its instance was started after the fence), perform, audit. A dry run
 * writes nothing, not even an Event.
 */
export async function unfenceStep(
  deps: FencerDeps,
  state: UnfenceStepState,
  options: { readonly remainingMs?: number } = {},
): Promise<UnfenceStepState> {
  const started = Date.now();
  const { request, history } = state;
  try {
    const { observation, fencer } = await observe(deps, request.node, request.cluster, {
      claimTtlSeconds: CLAIM_TTL_SECONDS,
      withDisks: false,
      providerBudgetMs: stepProviderBudgetMs(options.remainingMs),
    });
    const decision = decideUnfence(observation, request, history);
    const result = decision.action ? await perform(deps, decision.action, fencer) : null;
    const next = stepDecision(observation.observedAt, decision, result?.summary ?? null, started);
    const scope = { node: request.node, writeEvents: !request.dryRun && observation.node !== null };
    await audit(deps, scope, state.decision, next);
    return { request, history: decision.history, decision: next };
  } catch (error) {
    await auditError(deps, request.node, !request.dryRun, error);
    throw error;
  }
}
