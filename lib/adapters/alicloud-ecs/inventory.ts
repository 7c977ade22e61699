/**
 * ECS reads by id, batched and paged: instances (DescribeInstances, 100 ids per call) and disks
 * (DescribeDisks, 100 ids per call, or every disk of one instance). DescribeInstances leaves out the ids
 * it does not return (unknown, in another region, or hidden by the RAM policy: it answers an empty list
 * rather than an error when the caller may not see an instance), so absence proves nothing; only
 * DescribeInstanceAttribute's `InvalidInstanceId.NotFound` about that one id does.
 */
import type { EcsClient } from './ecs-client.js';
import type { EcsDisk, EcsInstance } from './ecs-shapes.js';
import { ProviderApiError } from './errors.js';
import { callEcs, type EcsRetryPolicy } from './retry.js';
import { Ecs } from './sdk.js';
import { errorCode, INSTANCE_NOT_FOUND } from './sdk-errors.js';

/** Ids per DescribeInstances / DescribeDisks call (the API's limit). */
export const IDS_PER_CALL = 100;
/** Entries per page. */
const PAGE_SIZE = 100;

/** Where and how the reads go. */
export interface EcsReader {
  readonly client: EcsClient;
  readonly region: string;
  readonly policy: EcsRetryPolicy;
}

/** Counts calls against a limit shared by every call of one batch. */
export class CallBudget {
  calls = 0;
  constructor(private readonly max: number = Number.POSITIVE_INFINITY) {}
  take(): boolean {
    if (this.calls >= this.max) return false;
    this.calls++;
    return true;
  }
}

export const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** Thrown when a batch reaches its call limit before it is done. */
export const budgetExhausted = (max: number) =>
  Object.assign(new Error(`not asked: the batch reached its limit of ${max} provider calls`), {
    name: 'CallBudgetExhausted',
  });

/**
 * The instances ECS returns for these ids (at most {@link IDS_PER_CALL}), every page of them. Ids left
 * out are simply missing from the map.
 */
export async function describeInstances(
  reader: EcsReader,
  ids: readonly string[],
  options: { readonly signal?: AbortSignal; readonly budget?: CallBudget } = {},
): Promise<Map<string, EcsInstance>> {
  const found = new Map<string, EcsInstance>();
  let nextToken: string | undefined;
  do {
    if (options.budget && !options.budget.take()) throw budgetExhausted(options.budget.calls);
    const request = new Ecs.DescribeInstancesRequest({
      regionId: reader.region,
      instanceIds: JSON.stringify(ids),
      maxResults: PAGE_SIZE,
      ...(nextToken ? { nextToken } : {}),
    });
    const response = await callEcs(() => reader.client.describeInstances(request), {
      operation: 'DescribeInstances',
      instanceId: ids.length === 1 ? ids[0] : undefined,
      signal: options.signal,
      policy: reader.policy,
    });
    for (const instance of response.body?.instances?.instance ?? []) {
      if (instance.instanceId && ids.includes(instance.instanceId)) found.set(instance.instanceId, instance);
    }
    nextToken = response.body?.nextToken || undefined;
  } while (nextToken);
  return found;
}

/**
 * Asks about one instance that DescribeInstances left out: `gone` only on `InvalidInstanceId.NotFound`.
 * If ECS does know it, the two answers disagree (eventual consistency, or a RAM policy that allows
 * DescribeInstanceAttribute but hides the instance from DescribeInstances): a retryable fault, never proof.
 */
export async function confirmAbsent(
  reader: EcsReader,
  instanceId: string,
  signal?: AbortSignal,
): Promise<'gone'> {
  const request = new Ecs.DescribeInstanceAttributeRequest({ instanceId });
  try {
    await callEcs(() => reader.client.describeInstanceAttribute(request), {
      operation: 'DescribeInstanceAttribute',
      instanceId,
      signal,
      policy: reader.policy,
      passThrough: (error) => errorCode(error) === INSTANCE_NOT_FOUND,
    });
  } catch (error) {
    if (errorCode(error) === INSTANCE_NOT_FOUND) return 'gone';
    throw error;
  }
  throw new ProviderApiError(
    {
      operation: 'DescribeInstances',
      code: 'InconsistentDescribe',
      instanceId,
      retryable: true,
      throttled: false,
    },
    'DescribeInstances left the instance out but DescribeInstanceAttribute knows it; is ecs:DescribeInstances allowed on it?',
  );
}

/** Every disk ECS reports attached to one instance (DescribeDisks filtered by InstanceId), every page. */
export async function disksOfInstance(
  reader: EcsReader,
  instanceId: string,
  signal?: AbortSignal,
): Promise<EcsDisk[]> {
  const disks: EcsDisk[] = [];
  let nextToken: string | undefined;
  do {
    const request = new Ecs.DescribeDisksRequest({
      regionId: reader.region,
      instanceId,
      maxResults: PAGE_SIZE,
      ...(nextToken ? { nextToken } : {}),
    });
    const response = await callEcs(() => reader.client.describeDisks(request), {
      operation: 'DescribeDisks',
      instanceId,
      signal,
      policy: reader.policy,
    });
    disks.push(...(response.body?.disks?.disk ?? []));
    nextToken = response.body?.nextToken || undefined;
  } while (nextToken);
  return disks;
}

/** The disks ECS returns for these ids (at most {@link IDS_PER_CALL}), every page; unknown ids are left out. */
export async function describeDisksByIds(
  reader: EcsReader,
  ids: readonly string[],
  budget: CallBudget,
): Promise<Map<string, EcsDisk>> {
  const found = new Map<string, EcsDisk>();
  let nextToken: string | undefined;
  do {
    if (!budget.take()) throw budgetExhausted(budget.calls);
    const request = new Ecs.DescribeDisksRequest({
      regionId: reader.region,
      diskIds: JSON.stringify(ids),
      maxResults: PAGE_SIZE,
      ...(nextToken ? { nextToken } : {}),
    });
    const response = await callEcs(() => reader.client.describeDisks(request), {
      operation: 'DescribeDisks',
      policy: reader.policy,
    });
    for (const disk of response.body?.disks?.disk ?? []) {
      if (disk.diskId && ids.includes(disk.diskId)) found.set(disk.diskId, disk);
    }
    nextToken = response.body?.nextToken || undefined;
  } while (nextToken);
  return found;
}
