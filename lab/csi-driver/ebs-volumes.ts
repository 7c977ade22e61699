import { setTimeout as sleep } from 'node:timers/promises';
import {
  AttachVolumeCommand,
  DescribeVolumesCommand,
  DetachVolumeCommand,
  type EC2Client,
  type Volume,
} from '@aws-sdk/client-ec2';
import { PublishConflict, VolumeMissing } from './publish-errors.js';

const LIVE = new Set(['attaching', 'attached', 'busy']);

async function describe(ec2: EC2Client, volumeId: string): Promise<Volume> {
  try {
    const out = await ec2.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }));
    const volume = out.Volumes?.[0];
    if (!volume) throw new VolumeMissing(`volume ${volumeId} not found`);
    return volume;
  } catch (err) {
    if ((err as { name?: string }).name === 'InvalidVolume.NotFound')
      throw new VolumeMissing(`volume ${volumeId} not found`);
    throw err;
  }
}

const liveAttachments = (v: Volume) => (v.Attachments ?? []).filter((a) => LIVE.has(a.State ?? ''));

async function waitFor(ec2: EC2Client, volumeId: string, done: (v: Volume) => boolean): Promise<Volume> {
  for (let i = 0; i < 120; i++) {
    const v = await describe(ec2, volumeId);
    if (done(v)) return v;
    await sleep(250);
  }
  throw new Error(`volume ${volumeId} did not settle within 30 s`);
}

/**
 * Attaches an EBS volume to an instance the way the EBS CSI controller does: idempotent when it is
 * already there, refused when the volume is attached to any other instance (io1/io2 multi-attach aside).
 */
export async function attach(ec2: EC2Client, volumeId: string, instanceId: string): Promise<string> {
  const volume = await describe(ec2, volumeId);
  const live = liveAttachments(volume);
  const mine = live.find((a) => a.InstanceId === instanceId);
  if (mine) return mine.Device ?? '';
  const other = live.find((a) => a.InstanceId !== instanceId);
  if (other) {
    throw new PublishConflict(
      `volume ${volumeId} is published to another node (${other.InstanceId}, ${other.State})`,
    );
  }
  const taken = await devicesOn(ec2, instanceId);
  const device = nextDevice(taken);
  await ec2.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: device }));
  await waitFor(ec2, volumeId, (v) =>
    liveAttachments(v).some((a) => a.InstanceId === instanceId && a.State === 'attached'),
  );
  return device;
}

/** Detaches a volume from an instance; a volume that is not attached there is already done. */
export async function detach(
  ec2: EC2Client,
  volumeId: string,
  instanceId: string,
): Promise<'detached' | 'not-attached'> {
  let volume: Volume;
  try {
    volume = await describe(ec2, volumeId);
  } catch (err) {
    if (err instanceof VolumeMissing) return 'not-attached';
    throw err;
  }
  if (!liveAttachments(volume).some((a) => a.InstanceId === instanceId)) return 'not-attached';
  await ec2.send(new DetachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId }));
  await waitFor(
    ec2,
    volumeId,
    (v) => !(v.Attachments ?? []).some((a) => a.InstanceId === instanceId && a.State !== 'detached'),
  );
  return 'detached';
}

async function devicesOn(ec2: EC2Client, instanceId: string): Promise<Set<string>> {
  const out = await ec2.send(
    new DescribeVolumesCommand({ Filters: [{ Name: 'attachment.instance-id', Values: [instanceId] }] }),
  );
  const devices = new Set<string>();
  for (const v of out.Volumes ?? []) for (const a of v.Attachments ?? []) if (a.Device) devices.add(a.Device);
  return devices;
}

function nextDevice(taken: Set<string>): string {
  for (let c = 'b'.charCodeAt(0); c <= 'z'.charCodeAt(0); c++) {
    for (const d of ['a', 'b', 'c', 'd']) {
      const name = `/dev/xvd${d}${String.fromCharCode(c)}`;
      if (!taken.has(name)) return name;
    }
  }
  throw new Error('no free device name on the instance');
}
