/**
 * The Workflow port in the controller's own process: a started run is the same durable run Function
 * Compute runs (lib/app/fence/durable-run.ts), the in-process reconcile loop recording a sealed
 * checkpoint on the Node before its power-off and after each step that changes its memory. So a run the
 * controller fences looks on the cluster as a serverless one does (the same claim, records, Events), and
 * a leader that dies mid-run leaves behind what the next leader continues from (resume.ts), under the
 * same run id, never powering off a second time.
 *
 * One workflow lives for one leadership term: the term's signal stops its runs (each gives its claim
 * back, lib/app/fence/run-loop.ts) and `drain` waits for them. Names are remembered for the term, so
 * a trigger repeated within it starts nothing; a new term starts with the cluster's records alone.
 */
import type { FenceRequest } from '../../domain/request.js';
import type { ExistingRunStatus, FenceRunInput, StartResult, Workflow } from '../../ports/workflow.js';
import type { DurableRunReport } from '../fence/durable-run.js';
import { runFenceDurably } from '../fence/durable-run.js';
import type { RunCheckpoints } from '../fence/run-checkpoint.js';
import type { FencerDeps } from '../shared/deps.js';

/**
 * A controller run's id: its name with a prefix of its own, as Function Compute's are `kf-<name>`. The
 * triggers of every deployment name a run alike (lib/app/triggers/start-run.ts), so without it a
 * controller and a Step Functions deployment on one cluster would share run ids, and with them the
 * node's fencing claim: with it, the claim lets one of them fence the node, never both at once.
 */
export const controllerRunId = (name: string): string => `kc-${name}`;

/** The run name a controller run id was made from, or null for another runner's id. */
export const runNameOf = (runId: string): string | null => (runId.startsWith('kc-') ? runId.slice(3) : null);

/** Outcomes after which a run's name is not used again for the incident (as Step Functions' succeeded runs). */
const GOOD_OUTCOMES: ReadonlySet<string> = new Set(['fenced', 'dry-run']);

export interface InProcessWorkflowOptions {
  /** The sealed checkpoints of one run (the composition root holds the seal key). */
  readonly checkpointsFor: (runId: string) => RunCheckpoints;
  /** How long one run may take before it gives up (outcome failed, reason Timeout). */
  readonly runTimeoutSeconds: number;
  /** The leadership term: its end stops every run. */
  readonly term: AbortSignal;
  /** Whether this replica still leads, asked of the Lease itself right before each power-off. */
  readonly confirmLeading: () => Promise<boolean>;
  /** Told when a run ends, whatever its end (metrics, logs). */
  readonly onEnded?: (ended: EndedRun) => void;
}

export interface EndedRun {
  readonly name: string;
  readonly request: FenceRequest;
  readonly report: DurableRunReport | null;
  readonly error: Error | null;
  /** Stopped because the term ended, not ended: the next leader continues it. */
  readonly handedOver: boolean;
}

interface RunEntry {
  status: ExistingRunStatus;
  readonly done: Promise<void>;
}

export class InProcessWorkflow implements Workflow {
  readonly #deps: FencerDeps;
  readonly #options: InProcessWorkflowOptions;
  readonly #runs = new Map<string, RunEntry>();

  constructor(deps: FencerDeps, options: InProcessWorkflowOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  /** Whether a run of this name was started in this term (the remediations' run book asks). */
  has(name: string): boolean {
    return this.#runs.has(name);
  }

  /** Runs going now. */
  get inFlight(): number {
    return [...this.#runs.values()].filter((r) => r.status === 'running').length;
  }

  async start(name: string, input: FenceRunInput): Promise<StartResult> {
    const runId = controllerRunId(name);
    const existing = this.#runs.get(name);
    if (existing) return { kind: 'exists', runId, status: existing.status };
    if (this.#options.term.aborted) throw new Error('this replica no longer leads: it starts no run');
    const entry: RunEntry = { status: 'running', done: Promise.resolve() };
    const done = this.#run(name, input.request, entry);
    this.#runs.set(name, Object.assign(entry, { done }));
    return { kind: 'started', runId };
  }

  /** Waits until every run of the term has ended (after the term's signal, each ends within a step). */
  async drain(): Promise<void> {
    await Promise.all([...this.#runs.values()].map((r) => r.done));
  }

  async #run(name: string, request: FenceRequest, entry: RunEntry): Promise<void> {
    let report: DurableRunReport | null = null;
    let error: Error | null = null;
    try {
      const runId = controllerRunId(name);
      report = await runFenceDurably(this.#deps, request, this.#options.checkpointsFor(runId), {
        runId,
        timeoutSeconds: this.#options.runTimeoutSeconds,
        signal: this.#options.term,
        handOverOnAbort: true,
        beforePowerOff: async () => {
          if (!(await this.#options.confirmLeading())) {
            throw new Error('this replica no longer leads: the power-off is left to the leader');
          }
        },
      });
      entry.status = GOOD_OUTCOMES.has(report.outcome) ? 'succeeded' : 'failed';
    } catch (thrown) {
      error = thrown as Error;
      entry.status = 'failed';
      this.#deps.log.error('fencing run ended with an error', {
        runId: name,
        node: request.node,
        error: error.name,
        message: error.message,
      });
    }
    const handedOver = this.#options.term.aborted && (error !== null || report?.reason === 'Timeout');
    this.#options.onEnded?.({ name, request, report, error, handedOver });
  }
}
