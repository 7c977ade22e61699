import type { Instance, Tag } from '@aws-sdk/client-ec2';
import {
  type DiskAttachmentState,
  type InstanceIdentity,
  type InstanceRef,
  type OwnershipVerdict,
  type PowerEvidence,
  PowerState,
} from '../../domain/instance.js';
import { zoneInRegion } from './provider-id.js';

/**
 * Pure translations from EC2's words into the fencer's. Kept apart from the SDK calls so each
 * rule can be read (and tested) on its own.
 */

const EC2_POWER_STATES: Readonly<Record<string, PowerState>> = {
  pending: PowerState.Pending,
  running: PowerState.Running,
  stopping: PowerState.Stopping,
  stopped: PowerState.Stopped,
  'shutting-down': PowerState.ShuttingDown,
  terminated: PowerState.Terminated,
};

/** EC2's state name as a {@link PowerState}; a name we do not know is `unknown`, never "off". */
export const toPowerState = (ec2State: string | undefined): PowerState =>
  (ec2State !== undefined ? EC2_POWER_STATES[ec2State] : undefined) ?? PowerState.Unknown;

/** StateReason says why (e.g. `Client.UserInitiatedShutdown`); StateTransitionReason says when. */
const stateReasonOf = (instance: Instance): string | undefined =>
  [instance.StateReason?.Message, instance.StateTransitionReason].filter(Boolean).join('; ') || undefined;

/** The evidence EC2 gives for one instance; `lifecycle` is resolved by the caller (it may need a call). */
export const toPowerEvidence = (
  instance: Instance,
  lifecycle: PowerEvidence['lifecycle'],
  observedAt: Date,
): PowerEvidence => ({
  instanceId: instance.InstanceId ?? '',
  state: toPowerState(instance.State?.Name),
  providerState: instance.State?.Name,
  // EC2's code carries the state in its low byte; the high byte is internal.
  stateCode: instance.State?.Code === undefined ? undefined : instance.State.Code & 0xff,
  stateReason: stateReasonOf(instance),
  launchTime: instance.LaunchTime?.toISOString(),
  // EC2 reports LaunchTime to the second: a start later in the second of a decision may be after it.
  ...(instance.LaunchTime ? { launchTimePrecision: 'second' as const } : {}),
  lifecycle,
  observedAt: observedAt.toISOString(),
});

/**
 * Who EC2 says the instance is: every private address of every interface, and its private DNS name.
 * A stopped VPC instance keeps both; a terminated one loses them, and the lists are then empty.
 */
export const toInstanceIdentity = (instance: Instance): InstanceIdentity => {
  const ips = new Set<string>();
  if (instance.PrivateIpAddress) ips.add(instance.PrivateIpAddress);
  for (const eni of instance.NetworkInterfaces ?? []) {
    if (eni.PrivateIpAddress) ips.add(eni.PrivateIpAddress);
    for (const address of eni.PrivateIpAddresses ?? []) {
      if (address.PrivateIpAddress) ips.add(address.PrivateIpAddress);
    }
    for (const address of eni.Ipv6Addresses ?? []) {
      if (address.Ipv6Address) ips.add(address.Ipv6Address);
    }
  }
  const hostnames = new Set<string>();
  if (instance.PrivateDnsName) hostnames.add(instance.PrivateDnsName.toLowerCase());
  for (const eni of instance.NetworkInterfaces ?? []) {
    if (eni.PrivateDnsName) hostnames.add(eni.PrivateDnsName.toLowerCase());
  }
  return { instanceId: instance.InstanceId ?? '', privateIps: [...ips], hostnames: [...hostnames] };
};

/** What EC2 says when it no longer knows the instance: real proof that the machine is gone. */
export const notFoundEvidence = (instanceId: string, observedAt: Date): PowerEvidence => ({
  instanceId,
  state: PowerState.NotFound,
  stateReason: 'EC2 answered InvalidInstanceID.NotFound',
  observedAt: observedAt.toISOString(),
});

const ATTACHMENT_STATES: ReadonlySet<string> = new Set([
  'attaching',
  'attached',
  'detaching',
  'detached',
  'busy',
]);

/**
 * EC2's volume attachment state; an unknown one counts as `attached`, because only a disk
 * known to be released may be treated as released.
 */
export const toDiskAttachmentState = (state: string | undefined): DiskAttachmentState =>
  state !== undefined && ATTACHMENT_STATES.has(state) ? (state as DiskAttachmentState) : 'attached';

/** Tag values with which Kubernetes marks a resource as the cluster's. */
const OWNERSHIP_VALUES: ReadonlySet<string> = new Set(['owned', 'shared']);

/** The facts {@link judgeOwnership} weighs. */
export interface OwnershipFacts {
  readonly ref: InstanceRef;
  readonly instance: Instance;
  /** The reservation's OwnerId (the AWS account). */
  readonly ownerId: string | undefined;
  readonly region: string;
  readonly tagKey: string;
  readonly accountId?: string;
}

const tagValue = (tags: readonly Tag[] | undefined, key: string): string | undefined =>
  tags?.find((tag) => tag.Key === key)?.Value;

/** SAFETY.md rule 3 for one described instance: right account, right zone, cluster's tag. */
export function judgeOwnership(facts: OwnershipFacts): OwnershipVerdict {
  const { ref, instance, ownerId, region, tagKey, accountId } = facts;
  if (accountId !== undefined && ownerId !== accountId) {
    return {
      owned: false,
      reason: 'wrong-account',
      detail: `instance ${ref.instanceId} belongs to account ${ownerId ?? 'unknown'}, not ${accountId}`,
    };
  }
  const zone = instance.Placement?.AvailabilityZone;
  if (zone !== undefined && !zoneInRegion(zone, region)) {
    return {
      owned: false,
      reason: 'wrong-region',
      detail: `instance ${ref.instanceId} is in zone ${zone}, outside region ${region}`,
    };
  }
  if (ref.zone !== undefined && zone !== undefined && zone !== ref.zone) {
    return {
      owned: false,
      reason: 'wrong-region',
      detail: `providerID names zone ${ref.zone} but instance ${ref.instanceId} is in ${zone}`,
    };
  }
  const value = tagValue(instance.Tags, tagKey);
  if (value === undefined || !OWNERSHIP_VALUES.has(value)) {
    const found = value === undefined ? 'no such tag' : `value "${value}"`;
    return {
      owned: false,
      reason: 'wrong-cluster',
      detail: `instance ${ref.instanceId} lacks tag ${tagKey}=owned|shared (${found})`,
    };
  }
  const account = ownerId ? `, account ${ownerId}` : '';
  return {
    owned: true,
    evidence: `instance ${ref.instanceId} in ${zone ?? region}${account} carries ${tagKey}=${value}`,
  };
}
