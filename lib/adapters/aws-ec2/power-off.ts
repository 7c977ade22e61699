import { type EC2Client, StopInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import type { PowerOffOptions, PowerOffOutcome, ProviderCallOptions } from '../../ports/compute-fencer.js';
import type { Ec2FencerLogger } from './logger.js';
import { errorCode, toProviderApiError } from './sdk-errors.js';

/** The mutating call {@link requestPowerOff} makes. */
export type PowerOffAction = 'stop' | 'terminate';

/** Codes with which EC2 answers a DryRun call that would fail (rather than a call that failed). */
const DRY_RUN_REFUSALS: ReadonlySet<string> = new Set([
  'UnauthorizedOperation',
  'UnsupportedOperation',
  'OperationNotPermitted',
  'IncorrectInstanceState',
]);

/** What {@link requestPowerOff} needs besides the client. */
export interface PowerOffRequest {
  readonly client: EC2Client;
  readonly logger: Ec2FencerLogger;
  readonly instanceId: string;
  readonly action: PowerOffAction;
  /** The state observed just before, reported as `previousState` if EC2 does not say. */
  readonly observedState: string;
  readonly options: PowerOffOptions & ProviderCallOptions;
}

const send = async (request: PowerOffRequest): Promise<string | undefined> => {
  const { client, instanceId, action, options } = request;
  // Force: a hung guest must not hold the fence; SkipOsShutdown only when the caller asks for it.
  const input = {
    InstanceIds: [instanceId],
    Force: true,
    SkipOsShutdown: options.skipOsShutdown === true ? true : undefined,
    DryRun: options.dryRun,
  };
  const sendOptions = { abortSignal: options.signal };
  if (action === 'stop') {
    const output = await client.send(new StopInstancesCommand(input), sendOptions);
    return output.StoppingInstances?.[0]?.PreviousState?.Name;
  }
  const output = await client.send(new TerminateInstancesCommand(input), sendOptions);
  return output.TerminatingInstances?.[0]?.PreviousState?.Name;
};

const operationOf = (action: PowerOffAction): string =>
  action === 'stop' ? 'StopInstances' : 'TerminateInstances';

/**
 * Makes one StopInstances/TerminateInstances call (with DryRun when asked) and says what it did.
 * EC2's DryRun answers are errors by design; they become `dry-run` outcomes here.
 */
export async function requestPowerOff(request: PowerOffRequest): Promise<PowerOffOutcome> {
  const { logger, instanceId, action, options } = request;
  try {
    const previousState = await send(request);
    if (options.dryRun) {
      // EC2 never acts on DryRun; if something did, the report must say the call was made.
      logger.warn('EC2 accepted a DryRun call without DryRunOperation', { instanceId, action });
    }
    logger.info('EC2 power-off requested', { instanceId, action, previousState });
    return { kind: 'requested', action, previousState: previousState ?? request.observedState };
  } catch (error) {
    const code = errorCode(error);
    const message = error instanceof Error ? error.message : String(error);
    if (options.dryRun && code === 'DryRunOperation') {
      return {
        kind: 'dry-run',
        action,
        wouldSucceed: true,
        detail: `EC2 ${operationOf(action)} would succeed (DryRunOperation)`,
      };
    }
    // EC2's answer for a one-time Spot instance (its request type was not known beforehand).
    if (action === 'stop' && code === 'UnsupportedOperation') {
      if (options.allowTerminate) return requestPowerOff({ ...request, action: 'terminate' });
      return { kind: 'not-stoppable', detail: `EC2 refused to stop ${instanceId}: ${message}` };
    }
    if (options.dryRun && DRY_RUN_REFUSALS.has(code)) {
      return {
        kind: 'dry-run',
        action,
        wouldSucceed: false,
        detail: `EC2 ${operationOf(action)} would fail: ${code}: ${message}`,
      };
    }
    // Stop or termination protection: an operator's decision that the fencer must not override.
    if (code === 'OperationNotPermitted') {
      return { kind: 'not-stoppable', detail: `EC2 refused to ${action} ${instanceId}: ${message}` };
    }
    throw toProviderApiError(operationOf(action), instanceId, error);
  }
}
