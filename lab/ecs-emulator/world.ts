import { randomBytes } from 'node:crypto';
import { EcsApiError, incorrectStatus, notFound } from './errors.js';
import { DEFAULT_DELAYS, type Delays, type Disk, type Instance, type Lock } from './model.js';

/** What a new instance may say about itself; the rest is made up the way ECS does. */
export interface NewInstance {
  readonly zoneId: string;
  readonly instanceName?: string;
  readonly tags?: Readonly<Record<string, string>>;
  readonly instanceChargeType?: Instance['instanceChargeType'];
  readonly spotStrategy?: Instance['spotStrategy'];
  readonly locks?: readonly Lock[];
  /** How long ago the machine booted. @default 0 (it boots now) */
  readonly bootedSecondsAgo?: number;
}

export interface NewDisk {
  readonly zoneId: string;
  readonly size: number;
  readonly category?: string;
  readonly diskName?: string;
  readonly multiAttach?: boolean;
  readonly tags?: Readonly<Record<string, string>>;
}

const ID_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const randomId = (length: number): string =>
  [...randomBytes(length)].map((b) => ID_CHARS[b % ID_CHARS.length]).join('');

/**
 * The ECS world of one region: instances with a Running → Stopping → Stopped (and back) state machine,
 * cloud disks with Available → Attaching → In_use → Detaching, each transition taking its configured delay.
 */
export class EcsWorld {
  readonly instances = new Map<string, Instance>();
  readonly disks = new Map<string, Disk>();
  delays: Delays;
  #nextIp = 10;
  readonly #idPrefix: string;

  constructor(
    readonly region: string,
    delays: Partial<Delays> = {},
  ) {
    this.delays = { ...DEFAULT_DELAYS, ...delays };
    // Real ids start with a short region code (bp: cn-hangzhou); any two letters do here.
    this.#idPrefix = region
      .replace(/[^a-z]/g, '')
      .slice(2, 4)
      .padEnd(2, 'x');
  }

  createInstance(input: NewInstance): Instance {
    this.#assertZone(input.zoneId);
    const instanceId = `i-${this.#idPrefix}${randomId(18)}`;
    const now = new Date();
    const ip = this.#nextIp++;
    const instance: Instance = {
      instanceId,
      regionId: this.region,
      zoneId: input.zoneId,
      instanceName: input.instanceName ?? instanceId,
      // ECS's default host name: iZ<instance id without "i-">Z.
      hostName: `iZ${instanceId.slice(2)}Z`,
      privateIp: `172.16.${Math.floor(ip / 250)}.${(ip % 250) + 2}`,
      creationTime: now,
      status: 'Running',
      startTime: new Date(now.getTime() - (input.bootedSecondsAgo ?? 0) * 1000),
      instanceChargeType: input.instanceChargeType ?? 'PostPaid',
      spotStrategy: input.spotStrategy ?? 'NoSpot',
      stoppedMode: 'Not-applicable',
      tags: new Map(Object.entries(input.tags ?? {})),
      locks: [...(input.locks ?? [])],
      stuckInStopping: false,
    };
    this.instances.set(instanceId, instance);
    const system = this.createDisk(
      { zoneId: input.zoneId, size: 40, category: 'cloud_essd', diskName: `${instanceId}-system` },
      'system',
    );
    system.status = 'In_use';
    system.attachments = [{ instanceId, device: '/dev/xvda', attachedTime: now }];
    return instance;
  }

  createDisk(input: NewDisk, type: Disk['type'] = 'data'): Disk {
    this.#assertZone(input.zoneId);
    const diskId = `d-${this.#idPrefix}${randomId(18)}`;
    const disk: Disk = {
      diskId,
      regionId: this.region,
      zoneId: input.zoneId,
      diskName: input.diskName ?? '',
      size: input.size,
      category: input.category ?? 'cloud_essd',
      type,
      multiAttach: input.multiAttach ?? false,
      creationTime: new Date(),
      status: 'Available',
      attachments: [],
      tags: new Map(Object.entries(input.tags ?? {})),
    };
    this.disks.set(diskId, disk);
    return disk;
  }

  instance(id: string): Instance {
    const instance = this.instances.get(id);
    if (!instance) throw notFound(id);
    return instance;
  }

  disk(id: string): Disk {
    const disk = this.disks.get(id);
    if (!disk)
      throw new EcsApiError(404, 'InvalidDiskId.NotFound', `The specified disk does not exist: ${id}.`);
    return disk;
  }

  /** StopInstance(s): only a Running instance can be stopped; a security lock refuses it. */
  stop(
    id: string,
    stoppedMode: 'KeepCharging' | 'StopCharging' | undefined,
    dryRun = false,
  ): Instance['status'] {
    const instance = this.instance(id);
    if (instance.locks.some((l) => l.lockReason === 'security')) {
      throw new EcsApiError(
        403,
        'InstanceLockedForSecurity',
        'The specified operation is denied as your instance is locked for security reasons.',
      );
    }
    if (instance.status !== 'Running') throw incorrectStatus(id, instance.status);
    if (dryRun) return instance.status;
    const previous = instance.status;
    instance.status = 'Stopping';
    instance.stoppedMode =
      instance.instanceChargeType === 'PostPaid' ? (stoppedMode ?? 'KeepCharging') : 'Not-applicable';
    if (!instance.stuckInStopping) {
      this.#later(instance, this.delays.stopMs, () => {
        instance.status = 'Stopped';
      });
    }
    return previous;
  }

  /** StartInstance(s): a Stopped instance goes Starting, then Running with a new start time. */
  start(id: string): Instance['status'] {
    const instance = this.instance(id);
    if (instance.status !== 'Stopped') throw incorrectStatus(id, instance.status);
    instance.status = 'Starting';
    this.#later(instance, this.delays.startMs, () => {
      instance.status = 'Running';
      instance.startTime = new Date();
      instance.stoppedMode = 'Not-applicable';
    });
    return 'Stopped';
  }

  /** Releases an instance (DeleteInstance): it and its system disk are gone; data disks become Available. */
  release(id: string): void {
    const instance = this.instance(id);
    clearTimeout(instance.timer);
    this.instances.delete(id);
    for (const disk of [...this.disks.values()]) {
      if (!disk.attachments.some((a) => a.instanceId === id)) continue;
      if (disk.type === 'system') this.disks.delete(disk.diskId);
      disk.attachments = disk.attachments.filter((a) => a.instanceId !== id);
      if (disk.attachments.length === 0) disk.status = 'Available';
    }
  }

  /** AttachDisk: a disk In_use elsewhere is refused unless it is a multi-attach disk. */
  attach(diskId: string, instanceId: string): void {
    const disk = this.disk(diskId);
    const instance = this.instance(instanceId);
    if (disk.zoneId !== instance.zoneId) {
      throw new EcsApiError(
        403,
        'InvalidOperation.ZoneMismatch',
        `The disk ${diskId} and the instance ${instanceId} are not in the same zone.`,
      );
    }
    if (instance.status !== 'Running' && instance.status !== 'Stopped')
      throw incorrectStatus(instanceId, instance.status);
    const busy =
      disk.status === 'Attaching' ||
      disk.status === 'Detaching' ||
      (disk.status === 'In_use' && !disk.multiAttach);
    if (busy || disk.attachments.some((a) => a.instanceId === instanceId)) {
      throw new EcsApiError(
        403,
        'IncorrectDiskStatus',
        `The current disk status does not support this operation (${diskId} is ${disk.status}).`,
      );
    }
    disk.status = 'Attaching';
    disk.attachingTo = instanceId;
    this.#later(disk, this.delays.attachMs, () => {
      const taken = new Set(
        [...this.disks.values()].flatMap((d) =>
          d.attachments.filter((a) => a.instanceId === instanceId).map((a) => a.device),
        ),
      );
      const device =
        ['b', 'c', 'd', 'e', 'f', 'g', 'h'].map((c) => `/dev/xvd${c}`).find((d) => !taken.has(d)) ??
        '/dev/xvdz';
      disk.attachments.push({ instanceId, device, attachedTime: new Date() });
      disk.attachingTo = undefined;
      disk.status = 'In_use';
    });
  }

  /** DetachDisk: only from the instance it is attached to. */
  detach(diskId: string, instanceId: string): void {
    const disk = this.disk(diskId);
    this.instance(instanceId);
    if (disk.type === 'system')
      throw new EcsApiError(403, 'OperationDenied', 'The system disk cannot be detached.');
    if (disk.status !== 'In_use' || !disk.attachments.some((a) => a.instanceId === instanceId)) {
      throw new EcsApiError(
        403,
        'IncorrectDiskStatus',
        `The current disk status does not support this operation (${diskId} is ${disk.status} and not attached to ${instanceId}).`,
      );
    }
    disk.status = 'Detaching';
    this.#later(disk, this.delays.detachMs, () => {
      disk.attachments = disk.attachments.filter((a) => a.instanceId !== instanceId);
      disk.status = disk.attachments.length > 0 ? 'In_use' : 'Available';
    });
  }

  /** Cancels every pending transition (the emulator is shutting down or resetting). */
  clear(): void {
    for (const item of [...this.instances.values(), ...this.disks.values()]) clearTimeout(item.timer);
    this.instances.clear();
    this.disks.clear();
  }

  #later(item: { timer?: NodeJS.Timeout }, ms: number, then: () => void): void {
    clearTimeout(item.timer);
    item.timer = setTimeout(then, ms);
    item.timer.unref();
  }

  #assertZone(zoneId: string): void {
    if (!zoneId.startsWith(this.region) || !/^(?:-[a-z0-9]+|[a-z])$/.test(zoneId.slice(this.region.length))) {
      throw new EcsApiError(
        400,
        'InvalidZoneId.NotFound',
        `The specified zone ${zoneId} does not exist in region ${this.region}.`,
      );
    }
  }
}
