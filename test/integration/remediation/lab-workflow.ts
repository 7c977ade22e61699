/**
 * A minimal in-process Workflow for the NHC test: each started run is `runFence` (lib/app/fence/run-loop.ts)
 * in this process under its run name, and a RunBook (lib/app/remediation/run-book.ts) keeps how each
 * ended. The controller's own workflow (lib/app/controller/in-process-workflow.ts) runs the same steps,
 * durably; this one keeps the test independent of its leadership terms.
 */
import { runFence } from '../../../lib/app/fence/run-loop.js';
import { endOfError, RunBook } from '../../../lib/app/remediation/run-book.js';
import type { FencerDeps } from '../../../lib/app/shared/deps.js';
import type { FenceRunInput, StartResult, Workflow } from '../../../lib/ports/workflow.js';

/** Long enough for a power-off and a drain in the lab, short of the test's own timeout. */
const RUN_TIMEOUT_SECONDS = 200;

export class LabWorkflow implements Workflow {
  readonly #deps: FencerDeps;
  readonly #runs = new Map<string, Promise<void>>();
  readonly book = new RunBook((name) => this.#runs.has(name));

  constructor(deps: FencerDeps) {
    this.#deps = deps;
  }

  async start(name: string, input: FenceRunInput): Promise<StartResult> {
    if (this.#runs.has(name)) {
      const state = await this.book.state(name);
      const status =
        state.kind !== 'ended' ? 'running' : state.end.outcome === 'fenced' ? 'succeeded' : 'failed';
      return { kind: 'exists', runId: name, status };
    }
    const run = runFence(this.#deps, input.request, {
      runId: name,
      timeoutSeconds: RUN_TIMEOUT_SECONDS,
    }).then(
      (report) => this.book.ended(name, report),
      (error: Error) => this.book.ended(name, endOfError(error, new Date())),
    );
    this.#runs.set(name, run);
    return { kind: 'started', runId: name };
  }

  /** Waits for every run started so far. */
  async drain(): Promise<void> {
    await Promise.all(this.#runs.values());
  }
}
