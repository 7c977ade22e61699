/**
 * Pure translations from ECS's words into the fencer's. Kept apart from the SDK calls so each rule can
 * be read (and tested) on its own.
 */
import type { DiskAttachmentFact, DiskState } from '../../domain/disk.js';
import {
  type DiskAttachment,
  type DiskAttachmentState,
  type InstanceIdentity,
  type PowerEvidence,
  PowerState,
} from '../../domain/instance.js';
import type { EcsDisk, EcsInstance, EcsLock } from './ecs-shapes.js';

/**
 * ECS's instance statuses. `Starting` is a machine booting (`pending`); `Stopping` is a machine that may
 * still write to its disks, never off. ECS has no terminated state: a released instance is not found.
 */
const ECS_POWER_STATES: Readonly<Record<string, PowerState>> = {
  Pending: PowerState.Pending,
  Starting: PowerState.Pending,
  Running: PowerState.Running,
  Stopping: PowerState.Stopping,
  Stopped: PowerState.Stopped,
};

/** ECS's status as a {@link PowerState}; a status we do not know is `unknown`, never "off". */
export const toPowerState = (status: string | undefined): PowerState =>
  (status !== undefined ? ECS_POWER_STATES[status] : undefined) ?? PowerState.Unknown;

/** A launch time with the precision ECS gave it. */
export interface EcsStartTime {
  readonly launchTime: string;
  readonly launchTimePrecision: NonNullable<PowerEvidence['launchTimePrecision']>;
}

/**
 * ECS's StartTime (`2026-04-14T22:32Z`, UTC, usually to the minute) as ISO 8601 with the precision it was
 * written at. A time to the minute is any instant of that minute: the rules read it the safe way round
 * (a start in the minute of a decision may be after it; one in the minute of a fence may be before it).
 */
export const toStartTime = (startTime: string | undefined): EcsStartTime | undefined => {
  const match = startTime?.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/);
  if (!startTime || !match) return undefined;
  const date = new Date(startTime);
  if (Number.isNaN(date.getTime())) return undefined;
  const launchTimePrecision = match[2] ? 'millisecond' : match[1] ? 'second' : 'minute';
  return { launchTime: date.toISOString(), launchTimePrecision };
};

const SPOT_STRATEGIES: ReadonlySet<string> = new Set(['SpotWithPriceLimit', 'SpotAsPriceGo']);

/** ECS spot (preemptible) instances can be stopped like pay-as-you-go ones; there is no one-time kind. */
export const toLifecycle = (spotStrategy: string | undefined): PowerEvidence['lifecycle'] =>
  spotStrategy !== undefined && SPOT_STRATEGIES.has(spotStrategy) ? 'spot' : 'on-demand';

/** The instance's operation locks (`security`, `financial`, `Recycling`, ...). */
export const locksOf = (instance: EcsInstance): readonly EcsLock[] =>
  (instance.operationLocks?.lockReason ?? []).filter((lock) => Boolean(lock.lockReason));

/** The locks in words, e.g. `security (locked by the security center)`. */
export const describeLocks = (locks: readonly EcsLock[]): string =>
  locks.map((l) => (l.lockMsg ? `${l.lockReason} (${l.lockMsg})` : String(l.lockReason))).join(', ');

const stateReasonOf = (instance: EcsInstance): string | undefined => {
  const parts: string[] = [];
  const locks = locksOf(instance);
  if (locks.length > 0) parts.push(`operation locks: ${describeLocks(locks)}`);
  if (instance.status === 'Stopped' && instance.stoppedMode)
    parts.push(`stopped mode ${instance.stoppedMode}`);
  return parts.length > 0 ? parts.join('; ') : undefined;
};

/** The evidence ECS gives for one instance. */
export const toPowerEvidence = (instance: EcsInstance, observedAt: Date): PowerEvidence => {
  const started = toStartTime(instance.startTime);
  const stateReason = stateReasonOf(instance);
  return {
    instanceId: instance.instanceId ?? '',
    state: toPowerState(instance.status),
    ...(instance.status !== undefined ? { providerState: instance.status } : {}),
    ...(stateReason !== undefined ? { stateReason } : {}),
    ...(started ?? {}),
    lifecycle: toLifecycle(instance.spotStrategy),
    observedAt: observedAt.toISOString(),
  };
};

/** What ECS says when it no longer knows the instance: proof that the machine is gone (released). */
export const notFoundEvidence = (instanceId: string, observedAt: Date): PowerEvidence => ({
  instanceId,
  state: PowerState.NotFound,
  stateReason: 'ECS DescribeInstanceAttribute answered InvalidInstanceId.NotFound',
  observedAt: observedAt.toISOString(),
});

/**
 * Who ECS says the instance is: every private address (the VPC's, the classic network's, every network
 * interface's primary, secondary and IPv6 addresses) and its host names, lower case, as a kubelet
 * reports its Hostname. A stopped VPC instance keeps them; a released one is not found at all.
 */
export const toInstanceIdentity = (instance: EcsInstance): InstanceIdentity => {
  const ips = new Set<string>();
  const add = (ip: string | undefined) => {
    if (ip) ips.add(ip);
  };
  for (const ip of instance.vpcAttributes?.privateIpAddress?.ipAddress ?? []) add(ip);
  for (const ip of instance.innerIpAddress?.ipAddress ?? []) add(ip);
  const hostnames = new Set<string>();
  if (instance.hostName) hostnames.add(instance.hostName.toLowerCase());
  for (const eni of instance.networkInterfaces?.networkInterface ?? []) {
    add(eni.primaryIpAddress);
    for (const set of eni.privateIpSets?.privateIpSet ?? []) {
      add(set.privateIpAddress);
      if (set.privateDnsName) hostnames.add(set.privateDnsName.toLowerCase());
    }
    for (const set of eni.ipv6Sets?.ipv6Set ?? []) add(set.ipv6Address);
  }
  return { instanceId: instance.instanceId ?? '', privateIps: [...ips], hostnames: [...hostnames] };
};

const DISK_ATTACHMENT_STATES: Readonly<Record<string, DiskAttachmentState>> = {
  In_use: 'attached',
  Attaching: 'attaching',
  Detaching: 'detaching',
  Available: 'detached',
};

/**
 * A disk's status as the state of its attachments; a status we do not know (ReIniting, Creating, a new
 * one) counts as `attached`, because only a disk known to be released may be treated as released.
 */
export const toDiskAttachmentState = (status: string | undefined): DiskAttachmentState =>
  (status !== undefined ? DISK_ATTACHMENT_STATES[status] : undefined) ?? 'attached';

/**
 * The instances a disk is attached to. A multi-attach disk names them in `Attachments` and leaves
 * `InstanceId` empty; a single-attach disk names its instance in `InstanceId` (and, on newer API
 * versions, in `Attachments` too). An `Available` disk is attached nowhere.
 */
export const attachmentsOf = (disk: EcsDisk): readonly DiskAttachmentFact[] => {
  const state = toDiskAttachmentState(disk.status);
  if (state === 'detached') return [];
  const byInstance = new Map<string, DiskAttachmentFact>();
  for (const a of disk.attachments?.attachment ?? []) {
    if (a.instanceId) byInstance.set(a.instanceId, { instanceId: a.instanceId, state, device: a.device });
  }
  if (disk.instanceId && !byInstance.has(disk.instanceId)) {
    byInstance.set(disk.instanceId, { instanceId: disk.instanceId, state, device: disk.device });
  }
  return [...byInstance.values()].map((a) => (a.device ? a : { instanceId: a.instanceId, state: a.state }));
};

/** One disk as the sweep reads it. */
export const toDiskState = (disk: EcsDisk, observedAt: Date): DiskState => ({
  volumeId: disk.diskId ?? '',
  exists: true,
  ...(disk.status !== undefined ? { providerState: disk.status } : {}),
  ...(disk.zoneId !== undefined ? { zone: disk.zoneId } : {}),
  attachments: attachmentsOf(disk),
  observedAt: observedAt.toISOString(),
});

/** The disks ECS reports on one instance; the system disk is the boot disk, which a stopped instance keeps. */
export const toDiskAttachments = (disks: readonly EcsDisk[], instanceId: string): DiskAttachment[] =>
  disks.flatMap((disk) => {
    const mine = attachmentsOf(disk).find((a) => a.instanceId === instanceId);
    if (!mine || !disk.diskId) return [];
    return [
      {
        volumeId: disk.diskId,
        state: mine.state,
        ...(mine.device ? { device: mine.device } : {}),
        root: disk.type === 'system',
      },
    ];
  });
