/**
 * The fencing workflow as Step Functions runs it, on this machine: the state machine the stack
 * synthesizes, run by an ASL interpreter (aws-local-stepfunctions) with the real step handler as its
 * `Step` task, the outcome topic captured, its Wait states shortened (or, asked, as deployed). Behind
 * the Workflow port, so the real triggers (the event router's and the health check's use cases) start
 * runs on it as they would on Step Functions: a name starts at most one execution.
 */
import type { Context } from 'aws-lambda';
import { StateMachine } from 'aws-local-stepfunctions';
import { WorkflowState } from '../../infra/constructs/workflow-states.js';
import type { ExistingRunStatus, FenceRunInput, StartResult, Workflow } from '../../lib/ports/workflow.js';

type Json = Record<string, unknown>;
export type StepHandler = (event: unknown, context: Context) => Promise<unknown>;

/** One execution: its result (the last state's output, or the failure), the states it entered. */
export interface LocalExecution {
  readonly name: string;
  readonly startedAt: number;
  readonly result: Promise<Json>;
  readonly visited: string[];
  /** Resolves once every state the execution entered is in `visited`. */
  readonly logging: Promise<void>;
  status: ExistingRunStatus;
  endedAt?: number;
}

export interface LocalWorkflowOptions {
  /** The state machine's definition (ASL), as the stack synthesizes it (see synth in the tests). */
  readonly definition: Json;
  /** The `Step` task: the real step handler, in this process or another. */
  readonly step: StepHandler;
  /** How long the `Wait` state waits: a fixed time, or `as-deployed` (the run's `waitSeconds`). @default 2000 ms */
  readonly waitMs?: number | 'as-deployed';
  /** Each message the workflow publishes to the outcomes topic. */
  readonly onPublish?: (message: Json) => void;
  /** The execution ARN's prefix. @default a lab account's */
  readonly executionArnPrefix?: string;
}

const lambdaContext = {
  awsRequestId: 'local-workflow',
  functionName: 'step',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

/** The Workflow port on the interpreter. */
export class LocalWorkflow implements Workflow {
  readonly runs = new Map<string, LocalExecution>();
  readonly #options: LocalWorkflowOptions;
  #published = 0;

  constructor(options: LocalWorkflowOptions) {
    this.#options = options;
  }

  /** Runs one execution of `input` under `name`, whatever ran before under it. */
  execute(name: string, input: Json, step: StepHandler = this.#options.step): LocalExecution {
    const machine = new StateMachine(this.#options.definition as never);
    const publish = (message: unknown) => {
      this.#options.onPublish?.(message as Json);
      this.#published += 1;
      return { MessageId: `m-${this.#published}` };
    };
    const prefix =
      this.#options.executionArnPrefix ?? 'arn:aws:states:us-east-1:123456789012:execution:lab-fencing';
    const execution = machine.run(input as never, {
      overrides: {
        taskResourceLocalHandlers: {
          [WorkflowState.Step]: (state) => step(state, lambdaContext) as never,
          [WorkflowState.PublishOutcome]: publish,
          [WorkflowState.PublishFailure]: publish,
        },
        ...(this.#options.waitMs === 'as-deployed'
          ? {}
          : { waitTimeOverrides: { [WorkflowState.Wait]: this.#options.waitMs ?? 2000 } }),
      },
      context: {
        Execution: {
          Id: `${prefix}:${name}`,
          Name: name,
          StartTime: new Date().toISOString(),
          Input: input as never,
        },
      },
    });
    const visited: string[] = [];
    const logging = (async () => {
      for await (const event of execution.eventLogs) {
        if (event.type === 'StateEntered') visited.push(event.state.name);
      }
    })();
    const run: LocalExecution = {
      name,
      startedAt: Date.now(),
      result: execution.result as Promise<Json>,
      visited,
      logging,
      status: 'running',
    };
    run.result.then(
      () => {
        run.status = 'succeeded';
        run.endedAt = Date.now();
      },
      () => {
        run.status = 'failed';
        run.endedAt = Date.now();
      },
    );
    return run;
  }

  async start(name: string, input: FenceRunInput): Promise<StartResult> {
    const existing = this.runs.get(name);
    if (existing) return { kind: 'exists', runId: name, status: existing.status };
    this.runs.set(name, this.execute(name, input as unknown as Json));
    return { kind: 'started', runId: name };
  }
}
