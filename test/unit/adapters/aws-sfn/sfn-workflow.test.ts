/** The Workflow port on Step Functions, against the SDK's own error classes (aws-sdk-client-mock). */
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { executionArn, SfnWorkflow } from '../../../../lib/adapters/aws-sfn/index.js';
import { DEFAULT_LIMITS } from '../../../../lib/domain/request.js';
import type { FenceRunInput } from '../../../../lib/ports/workflow.js';

const SM = 'arn:aws:states:us-east-1:123456789012:stateMachine:fencer-prod';
const INPUT: FenceRunInput = {
  request: {
    node: 'node-a',
    cluster: 'prod',
    dryRun: false,
    strategy: 'auto',
    accelerate: true,
    allowTerminate: false,
    skipOsShutdown: false,
    forceDeleteTolerating: false,
    limits: DEFAULT_LIMITS,
  },
  trigger: {
    source: 'manual',
    eventId: 'e',
    detail: 'd',
    receivedAt: '2026-02-02T17:00:00.000Z',
    node: 'node-a',
  },
};
const sfn = mockClient(SFNClient);
const workflow = () =>
  new SfnWorkflow({ stateMachineArn: SM, client: new SFNClient({ region: 'us-east-1' }) });
const alreadyExists = () =>
  new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} });

describe('SfnWorkflow', () => {
  beforeEach(() => sfn.reset());

  it('starts an execution under the given name, with the input as JSON', async () => {
    sfn
      .on(StartExecutionCommand)
      .resolves({ executionArn: executionArn(SM, 'prod-node-a-1'), startDate: new Date() });

    const result = await workflow().start('prod-node-a-1', INPUT);

    expect(result).toEqual({
      kind: 'started',
      runId: `arn:aws:states:us-east-1:123456789012:execution:fencer-prod:prod-node-a-1`,
    });
    const call = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(call).toEqual({ stateMachineArn: SM, name: 'prod-node-a-1', input: JSON.stringify(INPUT) });
  });

  it.each([
    ['RUNNING', 'running'],
    ['SUCCEEDED', 'succeeded'],
    ['FAILED', 'failed'],
    ['TIMED_OUT', 'failed'],
    ['ABORTED', 'failed'],
  ] as const)(
    'reports ExecutionAlreadyExists as the existing run, %s → %s, not as an error',
    async (status, expected) => {
      sfn.on(StartExecutionCommand).rejects(alreadyExists());
      sfn.on(DescribeExecutionCommand).resolves({
        status,
        executionArn: executionArn(SM, 'n'),
        stateMachineArn: SM,
        startDate: new Date(),
      });

      const result = await workflow().start('n', INPUT);

      expect(result).toEqual({ kind: 'exists', runId: executionArn(SM, 'n'), status: expected });
      expect(sfn.commandCalls(DescribeExecutionCommand)[0]?.args[0].input).toEqual({
        executionArn: executionArn(SM, 'n'),
      });
    },
  );

  it('keeps a duplicate a duplicate when the existing run cannot be described', async () => {
    sfn.on(StartExecutionCommand).rejects(alreadyExists());
    sfn.on(DescribeExecutionCommand).rejects(new Error('AccessDenied'));

    expect(await workflow().start('n', INPUT)).toMatchObject({ kind: 'exists', status: 'unknown' });
  });

  it('wraps any other failure in a ProviderApiError (retried by the caller, never swallowed)', async () => {
    sfn.on(StartExecutionCommand).rejects(new Error('ThrottlingException'));

    await expect(workflow().start('n', INPUT)).rejects.toMatchObject({
      name: 'ProviderApiError',
      operation: 'StartExecution',
    });
  });
});
