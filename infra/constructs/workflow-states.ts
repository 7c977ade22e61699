/**
 * Names of the fencing workflow's states and of the errors it ends with. The e2e test overrides Task
 * states by these names, and operators read them in the execution history, so they are a contract.
 */
export const WorkflowState = {
  Start: 'Start',
  Step: 'Step',
  CountStep: 'CountStep',
  Done: 'Done?',
  StepsLeft: 'StepsLeft?',
  TooManySteps: 'TooManySteps',
  NeedsWait: 'NeedsWait?',
  Wait: 'Wait',
  PublishOutcome: 'PublishOutcome',
  Outcome: 'Outcome?',
  Fenced: 'Fenced',
  RefusalReport: 'RefusalReport',
  Refused: 'Refused',
  Failed: 'Failed',
  PublishFailure: 'PublishFailure',
  StepFailed: 'StepFailed',
} as const;

/** Errors the state machine itself ends with (beside the fencer's own names in lib/domain/errors.ts). */
export const WorkflowError = {
  /** The run ended in phase Failed (deadline passed, provider unreachable). */
  FencingFailed: 'FencingFailed',
  /** The run took more steps than the state machine allows. */
  TooManySteps: 'TooManySteps',
} as const;

/** Errors of the Lambda service itself (not of our code): always worth a retry. */
export const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
  'Lambda.ClientExecutionTimeoutException',
] as const;

/** A task that ran out of time: the function's own timeout, or the Task state's. Retrying is safe (rule 7). */
export const TIMEOUT_ERRORS = ['Sandbox.Timedout', 'States.Timeout'] as const;
