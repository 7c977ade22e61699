/**
 * One task of the Step Functions fencing loop: the state machine carries this state from step to step
 * (infra/constructs/fencing-workflow.ts) and runs {@link fenceStep} once per task.
 */
import { assertHistory, type RunHistory, startRun } from '../../domain/history.js';
import type { FenceRequest } from '../../domain/request.js';
import type { FencerDeps } from '../shared/deps.js';
import { fenceStep } from './fence-step.js';
import type { StepDecision } from './outcome.js';
import { type RunCheckpoints, sameRequest } from './run-checkpoint.js';

/** The state between two tasks. Before the first, `history` and `decision` are null. */
export interface WorkflowState {
  readonly request: FenceRequest;
  /** The execution's name and start time, from the Step Functions context object. */
  /** `seal`: the run's secret (`States.UUID()` in the state machine) its checkpoints are sealed under. */
  readonly run: { readonly id: string; readonly startedAt: string; readonly seal?: string };
  /** Steps taken so far; the state machine counts them and fails the run past its maximum. */
  readonly attempts: { readonly count: number };
  readonly history: RunHistory | null;
  readonly decision: StepDecision | null;
  /** What the outcome notification says in its subject line (the state machine publishes it). */
  readonly notification?: { readonly subject: string };
}

/** SNS subjects must be under 100 characters of printable ASCII. */
export const MAX_SUBJECT_LENGTH = 99;

/**
 * The subject line of the run's notification, e.g. `kube-fencer: refused node-a (NodeReady) in prod`:
 * the outcome first, so refusals, failures and fencings are told apart in an inbox (and survive a cut).
 */
export function notificationSubject(request: FenceRequest, decision: StepDecision | null): string {
  const outcome = decision?.outcome ?? 'in-progress';
  const reason = decision?.reason && outcome !== 'fenced' ? ` (${decision.reason})` : '';
  const text = `kube-fencer: ${outcome} ${request.node}${reason} in ${request.cluster}`.replace(
    /[^\x20-\x7e]/g,
    '?',
  );
  return text.length <= MAX_SUBJECT_LENGTH ? text : `${text.slice(0, MAX_SUBJECT_LENGTH - 3)}...`;
}

/**
 * Step Functions retries a task that crashed with the task's input, which knows nothing of what the
 * crashed attempt did. Right before a power-off the step records the run's state on the Node (the
 * checkpoint); a retry of that step continues from it, with the decision's time the power-off followed,
 * so an instance started again meanwhile is seen as started again (SAFETY.md rule 2) and is never
 * powered off a second time. Only a step that has not requested a power-off yet can be such a retry.
 */
async function continuedFromCheckpoint(
  deps: FencerDeps,
  state: WorkflowState,
  history: RunHistory,
  checkpoints: RunCheckpoints,
): Promise<{ history: RunHistory; decision: StepDecision | null }> {
  const same = { history, decision: state.decision };
  if (state.request.dryRun || history.powerOffRequestedAt !== null) return same;
  const saved = await checkpoints.read(state.request.node, state.run.id);
  if (!saved || saved.history.powerOffRequestedAt === null || !sameRequest(saved.request, state.request))
    return same;
  assertHistory(saved.history);
  deps.log.warn(
    'a step of this run requested a power-off and did not return; continuing from its checkpoint',
    {
      runId: state.run.id,
      node: state.request.node,
      decidedToFenceAt: saved.history.decidedToFenceAt,
      powerOffRequestedAt: saved.history.powerOffRequestedAt,
    },
  );
  return { history: saved.history, decision: saved.decision };
}

/**
 * Runs one reconcile step. The history is checked first (a proof without a decision must never pass
 * for proof), and the wait is rounded up to whole seconds, as a Wait state needs. With `checkpoints`,
 * the step records the run's state before a power-off and a retried step continues from it.
 */
export async function workflowStep(
  deps: FencerDeps,
  state: WorkflowState,
  checkpoints?: RunCheckpoints,
): Promise<WorkflowState> {
  const started = state.history ?? startRun(state.run.id, state.run.startedAt);
  assertHistory(started);
  const { history, decision: previous } = checkpoints
    ? await continuedFromCheckpoint(deps, state, started, checkpoints)
    : { history: started, decision: state.decision };
  const next = await fenceStep(
    deps,
    { request: state.request, history, decision: previous },
    checkpoints ? { beforeAction: async (s) => void (await checkpoints.record(s)) } : {},
  );
  // The run has ended: the checkpoint a step wrote before its power-off is no longer needed on the Node.
  if (checkpoints && next.decision?.done && next.history.decidedToFenceAt !== null) {
    await checkpoints.clear(state.request.node, state.run.id);
  }
  const decision = next.decision && { ...next.decision, waitSeconds: Math.ceil(next.decision.waitSeconds) };
  return {
    ...state,
    history: next.history,
    decision,
    notification: { subject: notificationSubject(state.request, decision) },
  };
}
