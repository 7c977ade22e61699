/** The Step Functions task: one reconcile step of a fencing run (observe, decide, act once, audit). */
import { nodeCheckpoints } from '../../lib/app/run-checkpoint.js';
import { type WorkflowState, workflowStep } from '../../lib/app/workflow-step.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { parseRunCheckpoint } from '../../lib/config/run-checkpoint.js';
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
    // A retry of a step that crashed after its power-off continues from the Node's checkpoint.
    return workflowStep(
      deps,
      state,
      nodeCheckpoints(deps.cluster, parseRunCheckpoint, () => deps.clock.now()),
    );
  },
);
