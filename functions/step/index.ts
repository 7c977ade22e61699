/** The Step Functions task: one reconcile step of a fencing run (observe, decide, act once, audit). */
import { type WorkflowState, workflowStep } from '../../lib/app/fence/workflow-step.js';
import { runCheckpoints } from '../../lib/compose.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { stepStateSchema } from '../../lib/config/step-state.js';
import { telemetry } from '../shared/connection.js';
import { fencerHandler } from '../shared/handler.js';
import { fencerDeps } from '../shared/step-runtime.js';

/** Input: the state the last step returned (or the state machine's first one). Output: the next state. */
export const handler = fencerHandler(
  telemetry,
  {
    parse: (event) => parseOrThrow(stepStateSchema, event, 'step state') as unknown as WorkflowState,
    heartbeat: 'Steps',
    // The execution's name is the run id: every line of this step can be found from the run.
    keys: (state) => ({ runId: state.run.id, node: state.request.node }),
  },
  async (state): Promise<WorkflowState> => {
    const deps = await fencerDeps();
    // A retry of a step that crashed after its power-off continues from the Node's checkpoint, sealed
    // under the execution's own secret (its state's run.seal).
    return workflowStep(deps, state, runCheckpoints(deps, state.run.id, state.run.seal));
  },
);
