/**
 * The lab's Alibaba disk CSI controller logic against the ECS emulator, through the real SDK: like the
 * real driver with DISK_FORCE_DETACHED (its default), it takes a disk away from an instance that is
 * still running when asked to attach it elsewhere. Nothing at the storage layer stops a second writer;
 * this is why the fencer must prove the old instance Stopped before anything lets the disk move.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ecsDiskAttachments, ecsInstanceStatus } from '../../../lab/alibaba-nodes.js';
import { attachDisk, detachDisk, type EcsDiskBackend } from '../../../lab/csi-driver/ecs-disks.js';
import { PublishConflict } from '../../../lab/csi-driver/publish-errors.js';
import { type EcsEmulator, startEcsEmulatorInProcess } from '../../../lab/ecs-emulator/index.js';
import { ecsClientFor } from '../../../lab/ecs-emulator/sdk.js';

const REGION = 'cn-hangzhou';
const ZONE = 'cn-hangzhou-i';

let emulator: EcsEmulator;
const logged: Record<string, unknown>[] = [];
let driver: EcsDiskBackend;

beforeAll(async () => {
  emulator = await startEcsEmulatorInProcess({ region: REGION, delays: { attachMs: 50, detachMs: 50 } });
  driver = { client: ecsClientFor(emulator), region: REGION, forceDetach: true, log: (e) => logged.push(e) };
});
afterAll(async () => {
  await emulator?.stop();
});

const twoWorkersAndADisk = async () => {
  const a = await emulator.admin.createInstance({ zoneId: ZONE });
  const b = await emulator.admin.createInstance({ zoneId: ZONE });
  const disk = await emulator.admin.createDisk({ zoneId: ZONE, size: 20 });
  return { a: a.InstanceId, b: b.InstanceId, disk: disk.DiskId };
};

describe('the Alibaba disk driver in the lab', () => {
  it('publishes idempotently and unpublishes only from the instance that holds the disk', async () => {
    const { a, b, disk } = await twoWorkersAndADisk();
    const device = await attachDisk(driver, disk, a);
    expect(await attachDisk(driver, disk, a)).toBe(device);
    expect(await detachDisk(driver, disk, b)).toBe('not-attached');
    expect(await detachDisk(driver, disk, a)).toBe('detached');
    expect(await ecsDiskAttachments(driver.client, REGION, disk)).toEqual([]);
  });

  it('force-detaches a disk from a still-running instance to attach it elsewhere (DISK_FORCE_DETACHED)', async () => {
    const { a, b, disk } = await twoWorkersAndADisk();
    await attachDisk(driver, disk, a);
    expect(await ecsDiskAttachments(driver.client, REGION, disk)).toEqual([
      { instanceId: a, status: 'In_use' },
    ]);

    await attachDisk(driver, disk, b);

    // Instance a held the disk, then b does, and a never stopped: two writers at different times.
    expect(await ecsDiskAttachments(driver.client, REGION, disk)).toEqual([
      { instanceId: b, status: 'In_use' },
    ]);
    expect(await ecsInstanceStatus(driver.client, REGION, a)).toBe('Running');
    expect(logged).toContainEqual({ event: 'ForceDetach', volume: disk, from: a, to: b });
  });

  it('refuses instead when DISK_FORCE_DETACHED is off', async () => {
    const { a, b, disk } = await twoWorkersAndADisk();
    await attachDisk(driver, disk, a);
    await expect(attachDisk({ ...driver, forceDetach: false }, disk, b)).rejects.toThrow(PublishConflict);
    expect(await ecsDiskAttachments(driver.client, REGION, disk)).toEqual([
      { instanceId: a, status: 'In_use' },
    ]);
  });
});
