import type { PowerOffOptions, PowerOffOutcome, ProviderCallOptions } from '../../ports/compute-fencer.js';
import type { EcsClient } from './ecs-client.js';
import type { EcsInstance } from './ecs-shapes.js';
import { ProviderApiError } from './errors.js';
import { describeLocks, locksOf } from './instance-evidence.js';
import type { EcsFencerLogger } from './logger.js';
import { callEcs, type EcsRetryPolicy } from './retry.js';
import { Ecs } from './sdk.js';
import { errorCode, isRetryable, toProviderApiError } from './sdk-errors.js';

/** How a stopped pay-as-you-go instance is kept: `KeepCharging` keeps its resources, so it can start again. */
export type StoppedMode = 'KeepCharging' | 'StopCharging';

/** Reason codes the adapter puts first in a `not-stoppable` detail. */
export const EcsStopRefusal = {
  /** ECS refused the stop while the instance carries an operation lock (security, financial, ...). */
  InstanceLocked: 'InstanceLocked',
} as const;

/** ECS's answers to a DryRun that would succeed (StopInstance and StopInstances word it differently). */
const DRY_RUN_PASSED: ReadonlySet<string> = new Set(['DryRunOperation', 'DRYRUN.SUCCESS']);
/** A per-instance result of StopInstances that means success. */
const BATCH_OK = '200';

/** What {@link requestStop} needs. */
export interface StopRequest {
  readonly client: EcsClient;
  readonly logger: EcsFencerLogger;
  readonly region: string;
  /** The instance as described just before (its status is the fencer's own reading). */
  readonly instance: EcsInstance & { readonly instanceId: string };
  readonly stoppedMode: StoppedMode;
  readonly policy: EcsRetryPolicy;
  readonly options: PowerOffOptions & ProviderCallOptions;
  /** Describes the instance again; `undefined` when ECS proves it gone. */
  readonly redescribe: () => Promise<EcsInstance | undefined>;
}

/** A failure carried by StopInstances' per-instance result, shaped like the SDK's errors. */
const entryError = (code: string, message: string | undefined) =>
  Object.assign(new Error(message ?? code), { name: 'ClientError', code, statusCode: 400 });

/**
 * One StopInstances call (forced, `SuccessFirst`, so this instance's own result is reported and checked),
 * with DryRun when asked. Throws whatever ECS answered, the per-instance failure included.
 */
async function stopInstances(request: StopRequest): Promise<void> {
  const { client, instance, options } = request;
  // StoppedMode applies to pay-as-you-go instances only; subscription instances reject nothing but ignore it.
  const payAsYouGo = instance.instanceChargeType !== 'PrePaid';
  const input = new Ecs.StopInstancesRequest({
    regionId: request.region,
    instanceId: [instance.instanceId],
    forceStop: true,
    batchOptimization: 'SuccessFirst',
    ...(payAsYouGo ? { stoppedMode: request.stoppedMode } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
  });
  const response = await callEcs(() => client.stopInstances(input), {
    operation: 'StopInstances',
    instanceId: instance.instanceId,
    signal: options.signal,
    policy: request.policy,
    passThrough: (error) => !isRetryable(error),
  });
  const entry = response.body?.instanceResponses?.instanceResponse?.find(
    (r) => r.instanceId === instance.instanceId,
  );
  if (entry?.code !== undefined && entry.code !== BATCH_OK) throw entryError(entry.code, entry.message);
}

/**
 * Forces the instance off with StopInstances and says what happened. ECS answers a stop of an instance
 * that is not Running with `IncorrectInstanceStatus`; that answer is not trusted on its own: the instance
 * is described again, and only what that shows counts.
 */
export async function requestStop(request: StopRequest): Promise<PowerOffOutcome> {
  const { instance, options, logger } = request;
  const observed = instance.status ?? 'unknown';
  try {
    await stopInstances(request);
    if (options.dryRun) logger.warn('ECS accepted a DryRun stop without DryRunOperation', { observed });
    logger.info('ECS stop requested', { instanceId: instance.instanceId, observed });
    return { kind: 'requested', action: 'stop', previousState: observed };
  } catch (error) {
    return interpretRefusal(request, error);
  }
}

async function interpretRefusal(request: StopRequest, error: unknown): Promise<PowerOffOutcome> {
  // Retryable failures come out of callEcs already wrapped, after their retries.
  if (error instanceof ProviderApiError) throw error;
  const { instance, options } = request;
  const id = instance.instanceId;
  const code = errorCode(error);
  const message = (error as Error)?.message ?? String(error);
  if (options.dryRun) {
    const wouldSucceed = DRY_RUN_PASSED.has(code);
    if (wouldSucceed || !isRetryable(error)) {
      const detail = wouldSucceed
        ? `ECS StopInstances would succeed (${code})`
        : `ECS StopInstances would fail: ${code}`;
      return { kind: 'dry-run', action: 'stop', wouldSucceed, detail };
    }
  }
  if (code.startsWith('IncorrectInstanceStatus') && !isRetryable(error)) {
    return afterIncorrectStatus(request, error);
  }
  const locks = locksOf(instance);
  if (locks.length > 0 && !isRetryable(error)) {
    return {
      kind: 'not-stoppable',
      detail: `${EcsStopRefusal.InstanceLocked}: instance ${id} is locked (${describeLocks(locks)}); ECS refused the stop: ${code}: ${message}`,
    };
  }
  throw toProviderApiError('StopInstances', id, error);
}

/** ECS said the instance is not in a state it can stop from: look again, and go by what is there. */
async function afterIncorrectStatus(request: StopRequest, error: unknown): Promise<PowerOffOutcome> {
  const id = request.instance.instanceId;
  const now = await request.redescribe();
  if (now === undefined) return { kind: 'already-off', state: 'not-found' };
  const status = now.status ?? 'unknown';
  request.logger.info('ECS refused the stop; described the instance again', { instanceId: id, status });
  if (status === 'Stopped') return { kind: 'already-off', state: status };
  // Already on its way down (a stop made earlier, by this fencer or anyone): the stop stands requested,
  // and only a later Stopped is proof.
  if (status === 'Stopping') return { kind: 'requested', action: 'stop', previousState: status };
  const locks = locksOf(now);
  if (locks.length > 0) {
    return {
      kind: 'not-stoppable',
      detail: `${EcsStopRefusal.InstanceLocked}: instance ${id} is ${status} and locked (${describeLocks(locks)})`,
    };
  }
  // Starting or Pending: a state race; the next step asks again.
  const raced = Object.assign(new Error(`instance is ${status}; ECS cannot stop it yet`), {
    code: 'IncorrectInstanceStatus.Initializing',
    cause: error,
  });
  throw toProviderApiError('StopInstances', id, raced);
}
