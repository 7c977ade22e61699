/**
 * The EC2 reads of one instance that a fencing step makes: the instance itself (DescribeInstances) and
 * the volumes attached to it (DescribeVolumes). The fencer checks the instance's region before either.
 */
import {
  DescribeInstancesCommand,
  type EC2Client,
  type Instance,
  paginateDescribeVolumes,
  type Volume,
} from '@aws-sdk/client-ec2';
import { errorCode, INSTANCE_NOT_FOUND, toProviderApiError } from './sdk-errors.js';

/** A described instance and the account that owns its reservation. */
export interface DescribedInstance {
  readonly instance: Instance;
  readonly ownerId: string | undefined;
}

/** DescribeInstances for one instance; `undefined` only when EC2 says it does not exist. */
export async function describeInstance(
  client: EC2Client,
  instanceId: string,
  signal?: AbortSignal,
): Promise<DescribedInstance | undefined> {
  try {
    const output = await client.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }), {
      abortSignal: signal,
    });
    const reservation = output.Reservations?.find((r) =>
      r.Instances?.some((i) => i.InstanceId === instanceId),
    );
    const instance = reservation?.Instances?.find((i) => i.InstanceId === instanceId);
    // EC2 answers an unknown id with an error, never with an empty list: emptiness is not proof.
    if (!instance)
      throw Object.assign(new Error('EC2 returned no such instance'), { name: 'EmptyDescribeResult' });
    return { instance, ownerId: reservation?.OwnerId };
  } catch (error) {
    if (errorCode(error) === INSTANCE_NOT_FOUND) return undefined;
    throw toProviderApiError('DescribeInstances', instanceId, error);
  }
}

/** Every volume attached to the instance, all pages of DescribeVolumes. */
export async function volumesAttachedTo(
  client: EC2Client,
  instanceId: string,
  signal?: AbortSignal,
): Promise<Volume[]> {
  const volumes: Volume[] = [];
  try {
    const filter = { Filters: [{ Name: 'attachment.instance-id', Values: [instanceId] }] };
    const pages = paginateDescribeVolumes({ client }, filter, { abortSignal: signal });
    for await (const page of pages) {
      volumes.push(...(page.Volumes ?? []));
    }
  } catch (error) {
    throw toProviderApiError('DescribeVolumes', instanceId, error);
  }
  return volumes;
}
