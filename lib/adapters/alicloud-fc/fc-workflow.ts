/**
 * The Workflow port on Function Compute 3.0: a fencing run is one asynchronous invocation of the run
 * function, in task mode, whose task id is the run's name. Function Compute refuses a second task
 * with an id it has seen (HTTP 409), which is what makes a duplicate trigger harmless, as Step
 * Functions' execution names do on AWS; its asynchronous retries re-deliver a crashed attempt, and the
 * task's state (and the run function's answer) tells a later trigger how the run ended.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ExistingRunStatus, FenceRunInput, StartResult, Workflow } from '../../ports/workflow.js';
import { FcApiError } from './errors.js';
import type { FcClient } from './fc-client.js';
import { Fc } from './sdk.js';

export interface FcAsyncWorkflowProps {
  /** The run function (its name, or `name:qualifier`). */
  readonly functionName: string;
  readonly client: FcClient;
}

/** Task states that are not over yet. Function Compute names them in GetAsyncTask's `status`. */
const RUNNING = new Set(['Enqueued', 'Dequeued', 'Running', 'Suspended', 'Stopping', 'Retrying']);
/** Task states that ended without an answer from the run function. */
const ENDED_BADLY = new Set(['Failed', 'Stopped', 'Expired', 'Invalid']);
/** Run outcomes (the run function's answer) that fenced, or reported a dry run. */
const GOOD_OUTCOMES = new Set(['fenced', 'dry-run', 'unfenced']);

/**
 * A task id Function Compute accepts for a run name: it must start with a letter or an underscore, so
 * every run's task is `kf-<run name>` (a run name starts with its cluster's name, which may be a digit).
 */
export const taskIdOf = (runName: string): string => `kf-${runName}`;

/** What a finished task says about its run, from the run function's answer (its `outcome`). */
export function statusOfTask(
  status: string | undefined,
  returnPayload: string | undefined,
): ExistingRunStatus {
  if (status === undefined) return 'unknown';
  if (RUNNING.has(status)) return 'running';
  if (ENDED_BADLY.has(status)) return 'failed';
  if (status !== 'Succeeded') return 'unknown';
  try {
    const outcome = (JSON.parse(returnPayload ?? '') as { outcome?: unknown }).outcome;
    return typeof outcome === 'string' && GOOD_OUTCOMES.has(outcome) ? 'succeeded' : 'failed';
  } catch {
    return 'unknown';
  }
}

/**
 * openapi-core reads the runtime options' fields one by one; none set means the client's own timeouts
 * and no SDK-level retry (a start that fails is the trigger's to report, and FC's to re-deliver).
 */
const NO_RUNTIME_OPTIONS = {} as Parameters<FcClient['invokeFunctionWithOptions']>[3];

const statusCodeOf = (error: unknown): number | undefined =>
  typeof error === 'object' && error !== null ? (error as { statusCode?: number }).statusCode : undefined;

/** A run's checkpoint secret: 32 random bytes, base64url (lib/config/run-checkpoint.ts). */
const newRunSeal = (): string => randomBytes(32).toString('base64url');

/** {@link Workflow} on Function Compute asynchronous tasks. */
export class FcAsyncWorkflow implements Workflow {
  readonly #client: FcClient;
  readonly #functionName: string;
  readonly #qualifier: string | undefined;

  constructor(props: FcAsyncWorkflowProps) {
    const [name, qualifier] = props.functionName.split(':');
    this.#functionName = name ?? props.functionName;
    this.#qualifier = qualifier;
    this.#client = props.client;
  }

  async start(name: string, input: FenceRunInput): Promise<StartResult> {
    const taskId = taskIdOf(name);
    try {
      const answer = await this.#client.invokeFunctionWithOptions(
        this.#functionName,
        new Fc.InvokeFunctionRequest({
          ...(this.#qualifier ? { qualifier: this.#qualifier } : {}),
          // The SDK sends the body as a stream (it calls `.on` on it): a Buffer alone is not sent.
          // The seal: the run's own secret, which its checkpoints on the Node are sealed under. It lives
          // in the task's payload (every retry of the task carries it) and never in the cluster.
          body: Readable.from([Buffer.from(JSON.stringify({ ...input, runName: name, seal: newRunSeal() }))]),
        }),
        new Fc.InvokeFunctionHeaders({ xFcInvocationType: 'Async', xFcAsyncTaskId: taskId }),
        NO_RUNTIME_OPTIONS,
      );
      const requestId = answer.headers?.['x-fc-request-id'];
      return { kind: 'started', runId: requestId ? `${taskId} (request ${requestId})` : taskId };
    } catch (error) {
      if (statusCodeOf(error) !== 409) {
        throw new FcApiError(
          `Function Compute InvokeFunction ${this.#functionName} (task ${taskId}) failed: ${(error as Error).message}`,
          {
            cause: error,
            operation: 'InvokeFunction',
          },
        );
      }
    }
    return { kind: 'exists', runId: taskId, status: await this.#status(taskId) };
  }

  async #status(taskId: string): Promise<ExistingRunStatus> {
    try {
      const answer = await this.#client.getAsyncTask(
        this.#functionName,
        taskId,
        new Fc.GetAsyncTaskRequest(this.#qualifier ? { qualifier: this.#qualifier } : {}),
      );
      return statusOfTask(answer.body?.status, answer.body?.returnPayload);
    } catch {
      // Unknown keeps the duplicate a duplicate: no second run on a guess.
      return 'unknown';
    }
  }
}
