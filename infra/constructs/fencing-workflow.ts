/**
 * The fencing workflow: a Standard state machine running the reconcile loop
 * Step → CountStep → Done? → (StepsLeft? → NeedsWait? → Wait →) Step, with waits between steps (the
 * Lambda never sleeps), bounded steps, an overall timeout, retries and catches keyed on the named
 * errors, and every ending published to SNS with a subject and the execution's console link. A fenced
 * run ends in `Fenced` and a refused one in `Refused` (both Succeed: a refusal is a correct answer); only
 * a failure fails the execution.
 */
import { Aws, CfnMapping, Duration } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { ErrorName, RETRYABLE_ERROR_NAMES } from '../../lib/domain/errors.js';
import {
  LAMBDA_SERVICE_ERRORS,
  WorkflowState as S,
  TIMEOUT_ERRORS,
  WorkflowError,
} from './workflow-states.js';

export interface FencingWorkflowProps {
  readonly cluster: string;
  /** The step function (functions/step). */
  readonly step: lambda.IFunction;
  /** Its timeout; the Task state's timeout is set above it. */
  readonly stepTimeout: Duration;
  readonly topic: sns.ITopic;
  readonly key: kms.IKey;
  readonly logGroup: logs.ILogGroup;
  /**
   * Steps a run may take before it fails with TooManySteps: default deadlines (5 min power-off, 10 min
   * drain) at 5 s polls need about 180.
   * @default 360
   */
  readonly maxSteps?: number;
  /** @default Duration.minutes(45) */
  readonly timeout?: Duration;
}

/**
 * The console page of the current execution. The host is the partition's console (from a mapping, so
 * the stack stays environment-agnostic); `region=` opens the right region.
 */
const consoleUrl = (host: string, region: string) =>
  sfn.JsonPath.format(
    `https://${host}/states/home?region=${region}#/v2/executions/details/{}`,
    sfn.JsonPath.executionId,
  );

/**
 * The subject of a failure's message. The step did not return, so the execution's name (at most 80
 * characters) names the run; SNS subjects must stay under 100 characters.
 */
const FAILURE_SUBJECT = sfn.JsonPath.format('kube-fencer failed {}', sfn.JsonPath.executionName);

const outcomeMessage = (outcome: string, link: string, subject: string) =>
  sfn.TaskInput.fromObject({
    subject,
    runId: sfn.JsonPath.stringAt('$.run.id'),
    executionArn: sfn.JsonPath.executionId,
    consoleUrl: link,
    cluster: sfn.JsonPath.stringAt('$.request.cluster'),
    node: sfn.JsonPath.stringAt('$.request.node'),
    outcome,
    ...(outcome === 'failed'
      ? { error: sfn.JsonPath.stringAt('$.error.Error'), cause: sfn.JsonPath.stringAt('$.error.Cause') }
      : {
          phase: sfn.JsonPath.stringAt('$.decision.phase'),
          reason: sfn.JsonPath.stringAt('$.decision.reason'),
          message: sfn.JsonPath.stringAt('$.decision.message'),
        }),
  });

/** Console hosts by partition. */
const CONSOLE_HOSTS = {
  aws: { host: 'console.aws.amazon.com' },
  'aws-cn': { host: 'console.amazonaws.cn' },
  'aws-us-gov': { host: 'console.amazonaws-us-gov.com' },
};

/** The state machine and its definition. */
export class FencingWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly maxSteps: number;

  constructor(scope: Construct, id: string, props: FencingWorkflowProps) {
    super(scope, id);
    this.maxSteps = props.maxSteps ?? 360;
    const hosts = new CfnMapping(this, 'ConsoleHosts', { mapping: CONSOLE_HOSTS });
    const link = consoleUrl(hosts.findInMap(Aws.PARTITION, 'host'), Aws.REGION);
    const publish = (name: string, outcome: string | undefined) => {
      const subject =
        outcome === 'failed' ? FAILURE_SUBJECT : sfn.JsonPath.stringAt('$.notification.subject');
      return new tasks.SnsPublish(this, name, {
        stateName: name,
        topic: props.topic,
        subject,
        message: outcomeMessage(outcome ?? sfn.JsonPath.stringAt('$.decision.outcome'), link, subject),
        messageAttributes: {
          outcome: { value: outcome ?? sfn.JsonPath.stringAt('$.decision.outcome') },
          cluster: { value: props.cluster },
        },
        resultPath: sfn.JsonPath.DISCARD,
      }).addRetry({
        errors: ['States.TaskFailed'],
        interval: Duration.seconds(2),
        maxAttempts: 3,
        backoffRate: 2,
      });
    };

    // Endings.
    const stepFailed = new sfn.Fail(this, S.StepFailed, {
      stateName: S.StepFailed,
      errorPath: '$.error.Error',
      causePath: '$.error.Cause',
    });
    const publishFailure = publish(S.PublishFailure, 'failed');
    publishFailure.addCatch(stepFailed, { errors: ['States.ALL'], resultPath: '$.publishError' });
    publishFailure.next(stepFailed);
    const outcomeChoice = new sfn.Choice(this, S.Outcome, { stateName: S.Outcome })
      .when(
        sfn.Condition.or(
          sfn.Condition.stringEquals('$.decision.outcome', 'fenced'),
          sfn.Condition.stringEquals('$.decision.outcome', 'dry-run'),
          sfn.Condition.stringEquals('$.decision.outcome', 'unfenced'),
        ),
        new sfn.Succeed(this, S.Fenced, { stateName: S.Fenced }),
      )
      // A refusal is a correct result (a safety rule said no), not a failure: the run succeeds, with
      // the reason as its output, and only the Refusals alarm hears of it.
      .when(
        sfn.Condition.stringEquals('$.decision.outcome', 'refused'),
        new sfn.Pass(this, S.RefusalReport, {
          stateName: S.RefusalReport,
          parameters: {
            outcome: 'refused',
            'reason.$': '$.decision.reason',
            'message.$': '$.decision.message',
            'phase.$': '$.decision.phase',
            'node.$': '$.request.node',
            'cluster.$': '$.request.cluster',
            'runId.$': '$.run.id',
          },
        }).next(new sfn.Succeed(this, S.Refused, { stateName: S.Refused })),
      )
      .otherwise(
        new sfn.Fail(this, S.Failed, {
          stateName: S.Failed,
          error: WorkflowError.FencingFailed,
          causePath: '$.decision.message',
        }),
      );
    const publishOutcome = publish(S.PublishOutcome, undefined);
    publishOutcome.addCatch(outcomeChoice, { errors: ['States.ALL'], resultPath: '$.publishError' });
    publishOutcome.next(outcomeChoice);

    // The loop.
    const step = new tasks.LambdaInvoke(this, S.Step, {
      stateName: S.Step,
      lambdaFunction: props.step,
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      taskTimeout: sfn.Timeout.duration(props.stepTimeout.plus(Duration.seconds(30))),
    });
    step.addRetry({
      errors: [...RETRYABLE_ERROR_NAMES],
      interval: Duration.seconds(2),
      maxAttempts: 5,
      backoffRate: 2,
      maxDelay: Duration.seconds(30),
      jitterStrategy: sfn.JitterType.FULL,
    });
    step.addRetry({
      errors: [...LAMBDA_SERVICE_ERRORS],
      interval: Duration.seconds(2),
      maxAttempts: 6,
      backoffRate: 2,
    });
    step.addRetry({
      errors: [...TIMEOUT_ERRORS],
      interval: Duration.seconds(5),
      maxAttempts: 2,
      backoffRate: 2,
    });
    step.addCatch(publishFailure, { errors: [ErrorName.Validation], resultPath: '$.error' });
    step.addCatch(publishFailure, { errors: ['States.ALL'], resultPath: '$.error' });

    const countStep = new sfn.Pass(this, S.CountStep, {
      stateName: S.CountStep,
      parameters: { 'count.$': 'States.MathAdd($.attempts.count, 1)' },
      resultPath: '$.attempts',
    });
    const wait = new sfn.Wait(this, S.Wait, {
      stateName: S.Wait,
      time: sfn.WaitTime.secondsPath('$.decision.waitSeconds'),
    });
    const tooManySteps = new sfn.Pass(this, S.TooManySteps, {
      stateName: S.TooManySteps,
      parameters: {
        Error: WorkflowError.TooManySteps,
        Cause: `The run took ${this.maxSteps} steps without ending.`,
      },
      resultPath: '$.error',
    });
    const start = new sfn.Pass(this, S.Start, {
      stateName: S.Start,
      parameters: {
        'request.$': '$.request',
        // seal: the run's own secret, which the step seals its checkpoints on the Node under; it lives
        // in the execution's state only, never in the cluster (lib/config/run-checkpoint.ts).
        run: {
          'id.$': '$$.Execution.Name',
          'startedAt.$': '$$.Execution.StartTime',
          'seal.$': 'States.UUID()',
        },
        attempts: { count: 0 },
      },
    });
    const definition = start
      .next(step)
      .next(countStep)
      .next(
        new sfn.Choice(this, S.Done, { stateName: S.Done })
          .when(sfn.Condition.booleanEquals('$.decision.done', true), publishOutcome)
          .otherwise(
            new sfn.Choice(this, S.StepsLeft, { stateName: S.StepsLeft })
              .when(
                sfn.Condition.numberGreaterThanEquals('$.attempts.count', this.maxSteps),
                tooManySteps.next(publishFailure),
              )
              .otherwise(
                new sfn.Choice(this, S.NeedsWait, { stateName: S.NeedsWait })
                  .when(sfn.Condition.numberGreaterThan('$.decision.waitSeconds', 0), wait.next(step))
                  .otherwise(step),
              ),
          ),
      );

    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      timeout: props.timeout ?? Duration.minutes(45),
      tracingEnabled: true,
      logs: { destination: props.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: true },
      comment: `kube-fencer: fence nodes of ${props.cluster}, one reconcile step per task`,
    });
    props.key.grant(this.stateMachine, 'kms:GenerateDataKey', 'kms:Decrypt');
  }
}
