/** The emulator's state: ECS instances and cloud disks as ECS describes them. */

export type InstanceStatus = 'Pending' | 'Starting' | 'Running' | 'Stopping' | 'Stopped';
export type DiskStatus = 'Available' | 'Attaching' | 'In_use' | 'Detaching';

export interface Lock {
  readonly lockReason: string;
  readonly lockMsg?: string;
}

export interface Instance {
  readonly instanceId: string;
  readonly regionId: string;
  readonly zoneId: string;
  readonly instanceName: string;
  readonly hostName: string;
  readonly privateIp: string;
  readonly creationTime: Date;
  status: InstanceStatus;
  /** When it was last started (ECS reports it with minute precision). */
  startTime: Date;
  instanceChargeType: 'PostPaid' | 'PrePaid';
  spotStrategy: 'NoSpot' | 'SpotWithPriceLimit' | 'SpotAsPriceGo';
  stoppedMode: 'KeepCharging' | 'StopCharging' | 'Not-applicable';
  tags: Map<string, string>;
  locks: Lock[];
  /** Fault: a stop leaves it in Stopping for good. */
  stuckInStopping: boolean;
  /** A pending transition, cancelled when the instance is released. */
  timer?: NodeJS.Timeout;
}

export interface DiskAttachment {
  readonly instanceId: string;
  readonly device: string;
  readonly attachedTime: Date;
}

export interface Disk {
  readonly diskId: string;
  readonly regionId: string;
  readonly zoneId: string;
  readonly diskName: string;
  readonly size: number;
  readonly category: string;
  readonly type: 'system' | 'data';
  readonly multiAttach: boolean;
  readonly creationTime: Date;
  status: DiskStatus;
  /** Single-attach disks: at most one; multi-attach disks: several. */
  attachments: DiskAttachment[];
  /** Where an Attaching disk is going. */
  attachingTo?: string;
  tags: Map<string, string>;
  timer?: NodeJS.Timeout;
}

/** How long each transition takes; a test makes them long to watch the middle, or short to go fast. */
export interface Delays {
  /** Running → Stopping → Stopped. */
  stopMs: number;
  /** Stopped → Starting → Running. */
  startMs: number;
  /** Available → Attaching → In_use. */
  attachMs: number;
  /** In_use → Detaching → Available. */
  detachMs: number;
}

export const DEFAULT_DELAYS: Delays = { stopMs: 1500, startMs: 1500, attachMs: 500, detachMs: 500 };

/** A fault to inject in front of the next matching calls (after the signature check). */
export interface Fault {
  /** The action it hits, e.g. `StopInstances`; `*` for every action. */
  readonly action: string;
  /** Only requests signed with this AccessKey id (e.g. the fencer's, not the CSI driver's). */
  readonly accessKeyId?: string;
  /** The error to answer with; without one, the call is only delayed by `latencyMs`, then answered. */
  readonly status?: number;
  readonly code?: string;
  readonly message?: string;
  /** `x-acs-retry-after`, milliseconds. */
  readonly retryAfterMs?: number;
  /** Delay the answer this long first (e.g. longer than the client's read timeout). */
  readonly latencyMs?: number;
  /** How many matching calls it hits. @default 1 */
  times?: number;
}

/** ECS's time format: UTC, minute precision (`2026-04-14T22:32Z`). */
export const ecsTime = (date: Date): string => `${date.toISOString().slice(0, 16)}Z`;
