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
  type SFNClientConfig,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { ProviderApiError } from '../../domain/errors.js';
import type { ExistingRunStatus, FenceRunInput, StartResult, Workflow } from '../../ports/workflow.js';

/**
 * A trigger's Step Functions client: bounded attempts, each bounded, so a trigger that cannot start a
 * run fails well within its timeout and the event is delivered again (test/infra/timeouts.test.ts).
 */
export const SFN_CLIENT_DEFAULTS = {
  maxAttempts: 3,
  retryMode: 'standard',
  requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
} as const satisfies Partial<SFNClientConfig>;

export interface SfnWorkflowProps {
  readonly stateMachineArn: string;
  /** @default a client for the state machine's region with {@link SFN_CLIENT_DEFAULTS} */
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
    this.#client = props.client ?? new SFNClient({ ...SFN_CLIENT_DEFAULTS, region });
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
