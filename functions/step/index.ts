/** The Step Functions task: one reconcile step of a fencing run (observe, decide, act once, audit). */
import middy from '@middy/core';
import { type WorkflowState, workflowStep } from '../../lib/app/workflow-step.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { stepStateSchema } from '../../lib/config/step-state.js';
import { fencerDeps } from '../shared/step-runtime.js';

/** Input: the state the last step returned (or the state machine's first one). Output: the next state. */
export const handler = middy(async (event: unknown): Promise<WorkflowState> => {
  const state = parseOrThrow(stepStateSchema, event, 'step state') as unknown as WorkflowState;
  return workflowStep(await fencerDeps(), state);
});
