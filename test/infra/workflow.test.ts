/** The state machine as deployed: its ASL, read back from the template's DefinitionString. */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { STEP_TIMEOUT } from '../../infra/constructs/cluster-fencer.js';
import { WorkflowState as S } from '../../infra/constructs/workflow-states.js';
import { stateMachineDefinition, synth } from '../support/synth.js';

const { template } = synth([{ name: 'prod', eks: {}, maxSteps: 200, timeoutMinutes: 30 }]);
type State = {
  Type: string;
  Retry?: { ErrorEquals: string[]; MaxAttempts: number; IntervalSeconds: number; BackoffRate: number }[];
  Catch?: { ErrorEquals: string[]; Next: string; ResultPath: string }[];
  [key: string]: unknown;
};
const definition = stateMachineDefinition(template) as {
  States: Record<string, State>;
  TimeoutSeconds: number;
  StartAt: string;
};
const states = definition.States;
const step = states[S.Step] as State;

const retrierFor = (error: string) => step.Retry?.find((r) => r.ErrorEquals.includes(error));
const catcherFor = (error: string) => step.Catch?.find((c) => c.ErrorEquals.includes(error));

describe('the fencing workflow', () => {
  it('is a Standard state machine with an overall timeout, traced, logging everything to an encrypted group', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: true }),
    });
    expect(definition.TimeoutSeconds).toBe(30 * 60);
  });

  it('loops Step → CountStep → Done? → StepsLeft? → NeedsWait? → Wait(SecondsPath) → Step', () => {
    expect(definition.StartAt).toBe(S.Start);
    expect(states[S.Start]).toMatchObject({ Type: 'Pass', Next: S.Step });
    expect(step).toMatchObject({ Type: 'Task', Next: S.CountStep });
    expect(states[S.CountStep]).toMatchObject({
      Parameters: { 'count.$': 'States.MathAdd($.attempts.count, 1)' },
      Next: S.Done,
    });
    expect(states[S.Done]).toMatchObject({
      Choices: [{ Variable: '$.decision.done', BooleanEquals: true, Next: S.PublishOutcome }],
      Default: S.StepsLeft,
    });
    expect(states[S.NeedsWait]).toMatchObject({
      Choices: [{ Variable: '$.decision.waitSeconds', NumericGreaterThan: 0, Next: S.Wait }],
      Default: S.Step,
    });
    expect(states[S.Wait]).toEqual({ Type: 'Wait', SecondsPath: '$.decision.waitSeconds', Next: S.Step });
  });

  it("starts each run with its own checkpoint secret, made by Step Functions and kept in the execution's state", () => {
    // lib/config/run-checkpoint.ts: the step seals its checkpoints on the Node under run.seal, which
    // nothing in the cluster can read, so a checkpoint written by anyone else is never continued from.
    expect(states[S.Start]).toMatchObject({
      Parameters: {
        run: {
          'id.$': '$$.Execution.Name',
          'startedAt.$': '$$.Execution.StartTime',
          'seal.$': 'States.UUID()',
        },
      },
    });
    // The notifications carry the outcome, never the state with its secret.
    for (const name of [S.PublishOutcome, S.PublishFailure]) {
      const published = JSON.stringify(states[name]);
      expect(published).not.toContain('seal');
      expect(published).not.toMatch(/"\$"|"\$\.run"/);
    }
  });

  it('bounds the steps: past the maximum the run fails with TooManySteps, published first', () => {
    expect(states[S.StepsLeft]).toMatchObject({
      Choices: [{ Variable: '$.attempts.count', NumericGreaterThanEquals: 200, Next: S.TooManySteps }],
      Default: S.NeedsWait,
    });
    expect(states[S.TooManySteps]).toMatchObject({
      Parameters: { Error: 'TooManySteps' },
      ResultPath: '$.error',
      Next: S.PublishFailure,
    });
  });

  it('calls the step function directly (its JSON in, its JSON out) with a task timeout above the function’s', () => {
    const fn = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Description: Match.stringLikeRegexp('reconcile step') },
      }),
    )[0] as {
      Properties: { Timeout: number };
    };

    expect(step.Resource).toMatch(/^arn:aws:lambda:.*:function:ClusterprodstepFunction/);
    expect(step.Parameters).toBeUndefined();
    expect(fn.Properties.Timeout).toBe(STEP_TIMEOUT.toSeconds());
    expect(fn.Properties.Timeout).toBeLessThan(step.TimeoutSeconds as number);
  });

  it.each(['ProviderApiError', 'KubernetesApiError', 'ConflictError'])(
    'retries %s with backoff (the next try observes afresh)',
    (error) => {
      expect(retrierFor(error)).toMatchObject({
        IntervalSeconds: 2,
        MaxAttempts: 5,
        BackoffRate: 2,
        MaxDelaySeconds: 30,
        JitterStrategy: 'FULL',
      });
    },
  );

  it.each([
    'Lambda.ServiceException',
    'Lambda.AWSLambdaException',
    'Lambda.SdkClientException',
    'Lambda.TooManyRequestsException',
  ])('retries the Lambda service error %s', (error) => {
    expect(retrierFor(error)).toMatchObject({ MaxAttempts: 6, BackoffRate: 2 });
  });

  it('retries a step that timed out, and never retries ValidationError, RefusedError or States.ALL', () => {
    expect(retrierFor('Sandbox.Timedout')).toBeDefined();
    expect(retrierFor('States.Timeout')).toBeDefined();
    for (const error of ['ValidationError', 'RefusedError', 'ProviderIdError', 'States.ALL'])
      expect(retrierFor(error)).toBeUndefined();
  });

  it('catches ValidationError first, then everything else, into PublishFailure with the error kept', () => {
    expect(step.Catch).toEqual([
      { ErrorEquals: ['ValidationError'], ResultPath: '$.error', Next: S.PublishFailure },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: S.PublishFailure },
    ]);
    expect(catcherFor('ValidationError')?.Next).toBe(S.PublishFailure);
    expect(states[S.StepFailed]).toEqual({
      Type: 'Fail',
      ErrorPath: '$.error.Error',
      CausePath: '$.error.Cause',
    });
  });

  it('publishes every ending to the outcomes topic with a subject and the execution’s console link', () => {
    for (const name of [S.PublishOutcome, S.PublishFailure]) {
      expect(states[name]).toMatchObject({
        Type: 'Task',
        Resource: 'arn:aws:states:::sns:publish',
        Parameters: {
          TopicArn: expect.stringMatching(/:Outcomes/),
          Message: {
            'executionArn.$': '$$.Execution.Id',
            'consoleUrl.$':
              "States.Format('https://console.aws.amazon.com/states/home?region=us-east-1#/v2/executions/details/{}', $$.Execution.Id)",
          },
        },
        ResultPath: null,
      });
    }
    expect(states[S.PublishOutcome]).toMatchObject({
      Parameters: {
        'Subject.$': '$.notification.subject',
        Message: { 'outcome.$': '$.decision.outcome', 'reason.$': '$.decision.reason' },
      },
      Next: S.Outcome,
    });
    // The step did not return: the execution's name (at most 80 characters) keeps the subject under 100.
    expect(states[S.PublishFailure]).toMatchObject({
      Parameters: { 'Subject.$': "States.Format('kube-fencer failed {}', $$.Execution.Name)" },
    });
  });

  it('ends a fenced run in Fenced and a refused one in Refused, both successes; only a failure fails the execution', () => {
    expect(states[S.Outcome]).toMatchObject({
      Choices: [
        expect.objectContaining({ Next: S.Fenced }),
        { Variable: '$.decision.outcome', StringEquals: 'refused', Next: S.RefusalReport },
      ],
      Default: S.Failed,
    });
    expect(states[S.Fenced]).toEqual({ Type: 'Succeed' });
    expect(states[S.RefusalReport]).toEqual({
      Type: 'Pass',
      Parameters: {
        outcome: 'refused',
        'reason.$': '$.decision.reason',
        'message.$': '$.decision.message',
        'phase.$': '$.decision.phase',
        'node.$': '$.request.node',
        'cluster.$': '$.request.cluster',
        'runId.$': '$.run.id',
      },
      Next: S.Refused,
    });
    expect(states[S.Refused]).toEqual({ Type: 'Succeed' });
    expect(states[S.Failed]).toEqual({
      Type: 'Fail',
      Error: 'FencingFailed',
      CausePath: '$.decision.message',
    });
  });

  it('lets a failed publish not change the run’s ending', () => {
    expect(states[S.PublishOutcome]?.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.publishError', Next: S.Outcome },
    ]);
    expect(states[S.PublishFailure]?.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.publishError', Next: S.StepFailed },
    ]);
  });
});
