import type { EC2Client, Volume } from '@aws-sdk/client-ec2';
import type { DiskState } from '../../domain/disk.js';
import {
  type DiskAttachment,
  type InstanceRef,
  type OwnershipVerdict,
  type PowerEvidence,
  ProviderName,
} from '../../domain/instance.js';
import type {
  BatchAnswer,
  BatchOptions,
  ComputeFencer,
  InstanceInspection,
  PowerOffOptions,
  PowerOffOutcome,
  ProviderCallOptions,
} from '../../ports/compute-fencer.js';
import { createEc2Client } from './ec2-client.js';
import { ProviderIdError, RegionMismatchError } from './errors.js';
import {
  judgeOwnership,
  notFoundEvidence,
  toDiskAttachmentState,
  toInstanceIdentity,
  toPowerEvidence,
} from './instance-evidence.js';
import { type DescribedInstance, describeInstance, volumesAttachedTo } from './instance-reads.js';
import { describeInstancesBatch, describeVolumesBatch, observeInRegion } from './inventory.js';
import { type Ec2FencerLogger, silentLogger } from './logger.js';
import { requestPowerOff } from './power-off.js';
import { ownsAwsProviderId, parseAwsProviderId, zoneInRegion } from './provider-id.js';
import { lifecycleOf } from './spot-lifecycle.js';

/** Configuration of {@link Ec2ComputeFencer}. */
export interface Ec2ComputeFencerProps {
  /** The region this fencer serves; its client must talk to the same region. */
  readonly region: string;
  /**
   * The SDK client, injected by the composition root (or a test).
   * @default createEc2Client(region): standard retries, 3 attempts, bounded timeouts
   */
  readonly client?: EC2Client;
  /**
   * The AWS account that must own the instances; unchecked when absent.
   * @default undefined
   */
  readonly accountId?: string;
  /**
   * The ownership tag key for a cluster; its value must be `owned` or `shared`.
   * @default (cluster) => `kubernetes.io/cluster/${cluster}`
   */
  readonly clusterTagKey?: (cluster: string) => string;
  /** @default a logger that drops everything */
  readonly logger?: Ec2FencerLogger;
  /** The clock that stamps observations. @default () => new Date() */
  readonly now?: () => Date;
}

const OFF_EC2_STATES: ReadonlySet<string> = new Set(['stopped', 'terminated']);

/** {@link ComputeFencer} for AWS EC2: proves instances off through the EC2 API, and forces them off. */
export class Ec2ComputeFencer implements ComputeFencer {
  readonly provider = ProviderName.Aws;
  readonly #client: EC2Client;
  readonly #region: string;
  readonly #accountId: string | undefined;
  readonly #tagKey: (cluster: string) => string;
  readonly #logger: Ec2FencerLogger;
  readonly #now: () => Date;
  #clientRegion: Promise<string> | undefined;

  constructor(props: Ec2ComputeFencerProps) {
    this.#region = props.region;
    this.#client = props.client ?? createEc2Client(props.region);
    this.#accountId = props.accountId;
    this.#tagKey = props.clusterTagKey ?? ((cluster) => `kubernetes.io/cluster/${cluster}`);
    this.#logger = props.logger ?? silentLogger;
    this.#now = props.now ?? (() => new Date());
  }

  ownsProviderId(providerId: string): boolean {
    return ownsAwsProviderId(providerId);
  }

  parseProviderId(providerId: string | undefined): InstanceRef {
    return parseAwsProviderId(providerId);
  }

  async inspect(
    ref: InstanceRef,
    cluster: string,
    options: ProviderCallOptions = {},
  ): Promise<InstanceInspection> {
    const regionProblem = await this.#regionProblem(ref);
    const described = regionProblem ? undefined : await this.#describe(ref, options.signal);
    const observedAt = this.#now();
    if (!described) {
      return {
        ownership: this.#notOwned(ref, regionProblem),
        power: notFoundEvidence(ref.instanceId, observedAt),
        identity: null,
      };
    }
    const lifecycle = await lifecycleOf(this.#client, described.instance, this.#logger);
    return {
      ownership: this.#judge(ref, described, cluster),
      power: toPowerEvidence(described.instance, lifecycle, observedAt),
      identity: toInstanceIdentity(described.instance),
    };
  }

  async verifyOwnership(ref: InstanceRef, cluster: string): Promise<OwnershipVerdict> {
    const regionProblem = await this.#regionProblem(ref);
    if (regionProblem) return this.#notOwned(ref, regionProblem);
    const described = await this.#describe(ref);
    return described ? this.#judge(ref, described, cluster) : this.#notOwned(ref);
  }

  #judge(ref: InstanceRef, described: DescribedInstance, cluster: string): OwnershipVerdict {
    return judgeOwnership({
      ref,
      instance: described.instance,
      ownerId: described.ownerId,
      region: this.#region,
      tagKey: this.#tagKey(cluster),
      accountId: this.#accountId,
    });
  }

  /**
   * Not visible with these credentials in this region: terminated long enough ago that EC2 forgot it
   * (about an hour), or never this account's. That is `not-found`, never `wrong-account`: the rules read
   * it as gone only for the instance a run had already proved the cluster's and committed to.
   */
  #notOwned(ref: InstanceRef, regionProblem?: string): OwnershipVerdict {
    if (regionProblem) return { owned: false, reason: 'wrong-region', detail: regionProblem };
    const detail = `instance ${ref.instanceId} not found in region ${this.#region} of this account (EC2 answered InvalidInstanceID.NotFound)`;
    return { owned: false, reason: 'not-found', detail };
  }

  /** Why this fencer cannot speak for the instance's region, or `undefined` when it can. */
  async #regionProblem(ref: InstanceRef): Promise<string | undefined> {
    const clientRegion = await this.#resolveClientRegion();
    if (clientRegion !== this.#region)
      return `EC2 client talks to ${clientRegion}, fencer serves ${this.#region}`;
    if (ref.zone !== undefined && !zoneInRegion(ref.zone, this.#region)) {
      return `providerID zone ${ref.zone} is outside region ${this.#region}`;
    }
    return undefined;
  }

  async observePower(ref: InstanceRef): Promise<PowerEvidence> {
    const described = await this.#describe(ref);
    if (!described) return notFoundEvidence(ref.instanceId, this.#now());
    const lifecycle = await lifecycleOf(this.#client, described.instance, this.#logger);
    return toPowerEvidence(described.instance, lifecycle, this.#now());
  }

  async powerOff(ref: InstanceRef, options: PowerOffOptions & ProviderCallOptions): Promise<PowerOffOutcome> {
    // Check the world first: an instance that is already off needs no call, dry run or not.
    const described = await this.#describe(ref, options.signal);
    if (!described) return { kind: 'already-off', state: 'not-found' };
    const state = described.instance.State?.Name ?? 'unknown';
    if (OFF_EC2_STATES.has(state)) return { kind: 'already-off', state };
    const lifecycle = await lifecycleOf(this.#client, described.instance, this.#logger);
    // A one-time Spot instance cannot be stopped, and an instance already shutting down can only
    // finish terminating: both need TerminateInstances, which the caller must allow.
    const action = lifecycle === 'spot-one-time' || state === 'shutting-down' ? 'terminate' : 'stop';
    if (action === 'terminate' && !options.allowTerminate) {
      const why =
        state === 'shutting-down' ? 'is already shutting down (terminating)' : 'is a one-time Spot instance';
      return {
        kind: 'not-stoppable',
        detail: `instance ${ref.instanceId} ${why}; it can only be terminated, which is not allowed`,
      };
    }
    return requestPowerOff({
      client: this.#client,
      logger: this.#logger,
      instanceId: ref.instanceId,
      action,
      observedState: state,
      options,
    });
  }

  async attachedDisks(
    ref: InstanceRef,
    options: ProviderCallOptions = {},
  ): Promise<readonly DiskAttachment[]> {
    // The root device name tells the boot disk apart: a stopped instance keeps it attached.
    const [described, volumes] = await Promise.all([
      this.#describe(ref, options.signal),
      this.#volumesOf(ref, options.signal),
    ]);
    const rootDevice = described?.instance.RootDeviceName;
    const disks: DiskAttachment[] = [];
    for (const volume of volumes) {
      for (const attachment of volume.Attachments ?? []) {
        if (attachment.InstanceId !== ref.instanceId || !volume.VolumeId) continue;
        disks.push({
          volumeId: volume.VolumeId,
          state: toDiskAttachmentState(attachment.State),
          device: attachment.Device,
          root: rootDevice === undefined ? undefined : attachment.Device === rootDevice,
        });
      }
    }
    return disks;
  }

  /** Batched DescribeInstances; refs outside this fencer's region are faults, never "not found". */
  observePowerMany(
    refs: readonly InstanceRef[],
    options: BatchOptions = {},
  ): Promise<BatchAnswer<PowerEvidence>> {
    return observeInRegion(
      refs,
      (ref) => this.#assertInRegion(ref),
      (ids) => describeInstancesBatch(this.#client, ids, this.#now, options.maxCalls),
    );
  }

  holdsZone(zone: string): boolean {
    return zoneInRegion(zone, this.#region);
  }

  /** Every answer names this fencer's region: "does not exist" is true of that region only. */
  async describeDisks(
    volumeIds: readonly string[],
    options: BatchOptions = {},
  ): Promise<BatchAnswer<DiskState>> {
    const answer = await describeVolumesBatch(this.#client, volumeIds, this.#now, options.maxCalls);
    const region = this.#region;
    const results = new Map(
      [...answer.results].map(([id, fact]) => [
        id,
        fact.ok ? { ok: true as const, value: { ...fact.value, region } } : fact,
      ]),
    );
    return { results, calls: answer.calls };
  }

  async #volumesOf(ref: InstanceRef, signal?: AbortSignal): Promise<Volume[]> {
    await this.#assertInRegion(ref);
    return volumesAttachedTo(this.#client, ref.instanceId, signal);
  }

  /** DescribeInstances for one instance; `undefined` only when EC2 says it does not exist. */
  async #describe(ref: InstanceRef, signal?: AbortSignal): Promise<DescribedInstance | undefined> {
    await this.#assertInRegion(ref);
    return describeInstance(this.#client, ref.instanceId, signal);
  }

  #resolveClientRegion(): Promise<string> {
    this.#clientRegion ??= this.#client.config.region();
    return this.#clientRegion;
  }

  /** Asking another region about an instance would answer "not found": refuse instead. */
  async #assertInRegion(ref: InstanceRef): Promise<void> {
    if (ref.provider !== ProviderName.Aws) {
      throw new ProviderIdError(
        ref.instanceId,
        `instance ref of provider "${ref.provider}" given to the AWS EC2 fencer`,
      );
    }
    if (ref.zone !== undefined && !zoneInRegion(ref.zone, this.#region)) {
      throw new RegionMismatchError(ref.instanceId, `its providerID zone is ${ref.zone}`, this.#region);
    }
    const clientRegion = await this.#resolveClientRegion();
    if (clientRegion !== this.#region) {
      throw new RegionMismatchError(ref.instanceId, `the EC2 client talks to ${clientRegion}`, this.#region);
    }
  }
}
