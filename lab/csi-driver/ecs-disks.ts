/**
 * What the Alibaba Cloud disk CSI driver (diskplugin.csi.alibabacloud.com) does in ControllerPublish and
 * ControllerUnpublish, against the lab's ECS emulator through the real SDK. Its safety-critical default
 * is kept: with DISK_FORCE_DETACHED (on unless turned off), a disk In_use on another instance is detached
 * from it first and then attached here, whether or not that instance is still running. Nothing at the
 * storage layer stops a second writer; only a fencer's proof that the old instance is Stopped does.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EcsClient } from '../../lib/adapters/alicloud-ecs/index.js';
import { Ecs } from '../../lib/adapters/alicloud-ecs/sdk.js';
import { PublishConflict, VolumeMissing } from './publish-errors.js';

/** One disk as DescribeDisks shows it. */
interface Disk {
  readonly status: string;
  readonly instanceId: string;
  readonly device: string;
}

export interface EcsDiskBackend {
  readonly client: EcsClient;
  readonly region: string;
  /** DISK_FORCE_DETACHED: detach a disk from its old instance when asked to attach it elsewhere. @default true */
  readonly forceDetach: boolean;
  /** One JSON line for what the driver did beyond the RPC itself (the force detach). */
  readonly log: (entry: Record<string, unknown>) => void;
}

async function describe(backend: EcsDiskBackend, diskId: string): Promise<Disk> {
  const answer = await backend.client.describeDisks(
    new Ecs.DescribeDisksRequest({ regionId: backend.region, diskIds: JSON.stringify([diskId]) }),
  );
  const disk = answer.body?.disks?.disk?.[0];
  if (!disk) throw new VolumeMissing(`disk ${diskId} not found`);
  const attachment = disk.attachments?.attachment?.[0];
  return {
    status: disk.status ?? '',
    instanceId: disk.instanceId || attachment?.instanceId || '',
    device: disk.device || attachment?.device || '',
  };
}

async function waitFor(backend: EcsDiskBackend, diskId: string, done: (d: Disk) => boolean): Promise<Disk> {
  for (let i = 0; i < 240; i++) {
    const disk = await describe(backend, diskId);
    if (done(disk)) return disk;
    await sleep(250);
  }
  throw new Error(`disk ${diskId} did not settle within 60 s`);
}

/** Detaches the disk from `instanceId` and waits until ECS reports it Available. */
async function detachFrom(backend: EcsDiskBackend, diskId: string, instanceId: string): Promise<void> {
  await backend.client.detachDisk(new Ecs.DetachDiskRequest({ diskId, instanceId }));
  await waitFor(backend, diskId, (d) => d.status === 'Available');
}

/** ControllerPublish: attach the disk to the node's instance; idempotent when it is already there. */
export async function attachDisk(
  backend: EcsDiskBackend,
  diskId: string,
  instanceId: string,
): Promise<string> {
  let disk = await waitFor(backend, diskId, (d) => d.status !== 'Attaching' && d.status !== 'Detaching');
  if (disk.status === 'In_use' && disk.instanceId === instanceId) return disk.device;
  if (disk.status === 'In_use') {
    if (!backend.forceDetach) {
      throw new PublishConflict(`disk ${diskId} is attached to another instance (${disk.instanceId})`);
    }
    // The real driver's DetachBeforeAttach: the old instance loses the disk whatever state it is in.
    backend.log({ event: 'ForceDetach', volume: diskId, from: disk.instanceId, to: instanceId });
    await detachFrom(backend, diskId, disk.instanceId);
  }
  await backend.client.attachDisk(new Ecs.AttachDiskRequest({ diskId, instanceId }));
  disk = await waitFor(backend, diskId, (d) => d.status === 'In_use');
  return disk.device;
}

/** ControllerUnpublish: detach the disk from the node's instance; a disk not attached there is done. */
export async function detachDisk(
  backend: EcsDiskBackend,
  diskId: string,
  instanceId: string,
): Promise<'detached' | 'not-attached'> {
  let disk: Disk;
  try {
    disk = await waitFor(backend, diskId, (d) => d.status !== 'Attaching' && d.status !== 'Detaching');
  } catch (error) {
    if (error instanceof VolumeMissing) return 'not-attached';
    throw error;
  }
  // As the real driver: "Skip Detach, disk ... is not attached on instance".
  if (disk.status !== 'In_use' || disk.instanceId !== instanceId) return 'not-attached';
  await detachFrom(backend, diskId, instanceId);
  return 'detached';
}
