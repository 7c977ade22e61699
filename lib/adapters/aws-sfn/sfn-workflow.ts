/**
 * The Workflow port on Step Functions: one Standard execution per run, named by the caller. Step
 * Functions keeps a closed execution's name for 90 days and refuses to reuse it
 * (`ExecutionAlreadyExists`), which is what makes a duplicate trigger harmless.
 */
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  type ExecutionStatus,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { ProviderApiError } from '../../domain/errors.js';
import type { ExistingRunStatus, FenceRunInput, StartResult, Workflow } from '../../ports/workflow.js';

export interface SfnWorkflowProps {
  readonly stateMachineArn: string;
  /** @default a client for the state machine's region, 5 attempts */
  readonly client?: SFNClient;
}

const STATUS: Readonly<Record<ExecutionStatus, ExistingRunStatus>> = {
  RUNNING: 'running',
  PENDING_REDRIVE: 'running',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  TIMED_OUT: 'failed',
  ABORTED: 'failed',
};

/** `arn:…:stateMachine:<sm>` → `arn:…:execution:<sm>:<name>`. */
export const executionArn = (stateMachineArn: string, name: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;

/** {@link Workflow} on AWS Step Functions. */
export class SfnWorkflow implements Workflow {
  readonly #client: SFNClient;
  readonly #stateMachineArn: string;

  constructor(props: SfnWorkflowProps) {
    this.#stateMachineArn = props.stateMachineArn;
    const region = props.stateMachineArn.split(':')[3];
    this.#client = props.client ?? new SFNClient({ region, maxAttempts: 5 });
  }

  async start(name: string, input: FenceRunInput): Promise<StartResult> {
    try {
      const out = await this.#client.send(
        new StartExecutionCommand({
          stateMachineArn: this.#stateMachineArn,
          name,
          input: JSON.stringify(input),
        }),
      );
      return { kind: 'started', runId: out.executionArn ?? executionArn(this.#stateMachineArn, name) };
    } catch (err) {
      if (!(err instanceof ExecutionAlreadyExists)) {
        throw new ProviderApiError(
          `Step Functions StartExecution ${name} failed: ${(err as Error).message}`,
          {
            cause: err,
            operation: 'StartExecution',
          },
        );
      }
    }
    const runId = executionArn(this.#stateMachineArn, name);
    return { kind: 'exists', runId, status: await this.#status(runId) };
  }

  async #status(arn: string): Promise<ExistingRunStatus> {
    try {
      const out = await this.#client.send(new DescribeExecutionCommand({ executionArn: arn }));
      return out.status ? STATUS[out.status] : 'unknown';
    } catch {
      // Unknown keeps the duplicate a duplicate: no second run on a guess.
      return 'unknown';
    }
  }
}
