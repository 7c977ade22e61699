import type { DiskState } from '../../domain/disk.js';
import {
  type DiskAttachment,
  type InstanceRef,
  type OwnershipVerdict,
  type PowerEvidence,
  PowerState,
  ProviderName,
} from '../../domain/instance.js';
import type { Fallible } from '../../domain/observation.js';
import type {
  BatchAnswer,
  BatchOptions,
  ComputeFencer,
  InstanceInspection,
  PowerOffOptions,
  PowerOffOutcome,
  ProviderCallOptions,
} from '../../ports/compute-fencer.js';
import { describeDisksBatch, observeInstancesBatch } from './batch.js';
import { createEcsClient, type EcsClient, type EcsCredentials } from './ecs-client.js';
import type { EcsInstance } from './ecs-shapes.js';
import { EcsConfigError, ProviderIdError, RegionMismatchError } from './errors.js';
import {
  notFoundEvidence,
  toDiskAttachments,
  toInstanceIdentity,
  toPowerEvidence,
} from './instance-evidence.js';
import { confirmAbsent, describeInstances, disksOfInstance, type EcsReader } from './inventory.js';
import { type EcsFencerLogger, silentLogger } from './logger.js';
import { defaultOwnershipTags, type EcsOwnershipTag, judgeOwnership } from './ownership.js';
import { requestStop, type StoppedMode } from './power-off.js';
import { ownsAlicloudProviderId, parseAlicloudProviderId, regionOfRef } from './provider-id.js';
import { DEFAULT_RETRY_POLICY, type EcsRetryPolicy } from './retry.js';

/** Configuration of {@link EcsComputeFencer}. */
export interface EcsComputeFencerProps {
  /** The region this fencer serves (`cn-hangzhou`); instances of other regions are refused, never asked about. */
  readonly region: string;
  /**
   * The SDK client, injected by the composition root (or a test).
   * @default createEcsClient({ region, credentials, endpoint })
   */
  readonly client?: EcsClient;
  /** Needed when no client is given: the SDK reads no environment by itself. */
  readonly credentials?: EcsCredentials;
  /** @default ECS's regional endpoint */
  readonly endpoint?: string;
  /** @default defaultOwnershipTags: `ack.aliyun.com=<cluster>` or `kubernetes.io/cluster/<cluster>=owned|shared` */
  readonly ownershipTags?: (cluster: string) => readonly EcsOwnershipTag[];
  /**
   * Shorthand for `ownershipTags`: the one tag key whose value must equal the cluster name (e.g.
   * `ack.aliyun.com`, whose value is the ACK cluster id). Ignored when `ownershipTags` is given.
   */
  readonly clusterTagKey?: string;
  /**
   * How a stopped pay-as-you-go instance is kept. `KeepCharging` keeps its vCPUs and memory, so it can
   * start again; `StopCharging` (economical mode) releases them and a restart can fail on stock.
   * @default 'KeepCharging'
   */
  readonly stoppedMode?: StoppedMode;
  /** @default DEFAULT_RETRY_POLICY: 4 attempts, backoff from 200 ms up to 3 s */
  readonly retry?: Partial<EcsRetryPolicy>;
  /** @default a logger that drops everything */
  readonly logger?: EcsFencerLogger;
  /** The clock that stamps observations. @default () => new Date() */
  readonly now?: () => Date;
}

type Described = EcsInstance & { readonly instanceId: string };

/** {@link ComputeFencer} for Alibaba Cloud ECS: proves instances off through the ECS API, and forces them off. */
export class EcsComputeFencer implements ComputeFencer {
  readonly provider = ProviderName.Alicloud;
  readonly #reader: EcsReader;
  readonly #region: string;
  readonly #tags: (cluster: string) => readonly EcsOwnershipTag[];
  readonly #stoppedMode: StoppedMode;
  readonly #logger: EcsFencerLogger;
  readonly #now: () => Date;

  constructor(props: EcsComputeFencerProps) {
    this.#region = props.region;
    const client = props.client ?? this.#defaultClient(props);
    this.#reader = { client, region: props.region, policy: { ...DEFAULT_RETRY_POLICY, ...props.retry } };
    const key = props.clusterTagKey;
    this.#tags =
      props.ownershipTags ?? (key ? (cluster: string) => [{ key, values: [cluster] }] : defaultOwnershipTags);
    this.#stoppedMode = props.stoppedMode ?? 'KeepCharging';
    this.#logger = props.logger ?? silentLogger;
    this.#now = props.now ?? (() => new Date());
  }

  #defaultClient(props: EcsComputeFencerProps): EcsClient {
    if (!props.credentials) {
      throw new EcsConfigError(
        'the ECS fencer needs credentials (or a client): the SDK reads no environment',
      );
    }
    return createEcsClient({
      region: props.region,
      credentials: props.credentials,
      endpoint: props.endpoint,
    });
  }

  ownsProviderId(providerId: string): boolean {
    return ownsAlicloudProviderId(providerId);
  }

  parseProviderId(providerId: string | undefined): InstanceRef {
    return parseAlicloudProviderId(providerId);
  }

  async inspect(
    ref: InstanceRef,
    cluster: string,
    options: ProviderCallOptions = {},
  ): Promise<InstanceInspection> {
    const misplaced = this.#regionProblem(ref);
    if (misplaced) {
      // Not asked at all: another region's answer would be "not found", which must never read as "off".
      const power = { instanceId: ref.instanceId, state: PowerState.Unknown, stateReason: misplaced };
      return {
        ownership: this.#notOwned(ref, misplaced),
        power: { ...power, observedAt: this.#now().toISOString() },
        identity: null,
      };
    }
    const described = await this.#describe(ref, options.signal);
    const observedAt = this.#now();
    if (!described) {
      return {
        ownership: this.#notOwned(ref),
        power: notFoundEvidence(ref.instanceId, observedAt),
        identity: null,
      };
    }
    return {
      ownership: this.#judge(ref, described, cluster),
      power: toPowerEvidence(described, observedAt),
      identity: toInstanceIdentity(described),
    };
  }

  async verifyOwnership(ref: InstanceRef, cluster: string): Promise<OwnershipVerdict> {
    const misplaced = this.#regionProblem(ref);
    if (misplaced) return this.#notOwned(ref, misplaced);
    const described = await this.#describe(ref);
    return described ? this.#judge(ref, described, cluster) : this.#notOwned(ref);
  }

  async observePower(ref: InstanceRef): Promise<PowerEvidence> {
    const described = await this.#describe(ref);
    return described
      ? toPowerEvidence(described, this.#now())
      : notFoundEvidence(ref.instanceId, this.#now());
  }

  async powerOff(ref: InstanceRef, options: PowerOffOptions & ProviderCallOptions): Promise<PowerOffOutcome> {
    // Check the world first: an instance that is already off needs no call, dry run or not.
    const described = await this.#describe(ref, options.signal);
    if (!described) return { kind: 'already-off', state: 'not-found' };
    if (described.status === 'Stopped') return { kind: 'already-off', state: described.status };
    return requestStop({
      client: this.#reader.client,
      logger: this.#logger,
      region: this.#region,
      instance: described,
      stoppedMode: this.#stoppedMode,
      policy: this.#reader.policy,
      options,
      redescribe: () => this.#describe(ref, options.signal),
    });
  }

  async attachedDisks(
    ref: InstanceRef,
    options: ProviderCallOptions = {},
  ): Promise<readonly DiskAttachment[]> {
    this.#assertInRegion(ref);
    const disks = await disksOfInstance(this.#reader, ref.instanceId, options.signal);
    return toDiskAttachments(disks, ref.instanceId);
  }

  /** Batched DescribeInstances; refs of another region are faults, never "not found". */
  async observePowerMany(
    refs: readonly InstanceRef[],
    options: BatchOptions = {},
  ): Promise<BatchAnswer<PowerEvidence>> {
    const results = new Map<string, Fallible<PowerEvidence>>();
    const ids: string[] = [];
    for (const ref of refs) {
      const misplaced = this.#regionProblem(ref);
      if (misplaced)
        results.set(ref.instanceId, {
          ok: false,
          error: { name: 'RegionMismatchError', message: misplaced },
        });
      else ids.push(ref.instanceId);
    }
    const answer = await observeInstancesBatch(this.#reader, ids, this.#now, options.maxCalls);
    for (const [id, result] of answer.results) results.set(id, result);
    return { results, calls: answer.calls };
  }

  describeDisks(volumeIds: readonly string[], options: BatchOptions = {}): Promise<BatchAnswer<DiskState>> {
    return describeDisksBatch(this.#reader, volumeIds, this.#now, options.maxCalls);
  }

  #judge(ref: InstanceRef, instance: EcsInstance, cluster: string): OwnershipVerdict {
    const region = regionOfRef(ref);
    return judgeOwnership({
      ref: { instanceId: ref.instanceId, zone: ref.zone, ...(region ? { region } : {}) },
      instance,
      region: this.#region,
      tags: this.#tags(cluster),
    });
  }

  /**
   * Not visible with these credentials in this region: released (ECS forgets a released instance at
   * once), or never this account's. That is `not-found`, never `wrong-account`: the rules read it as gone
   * only for the instance a run had already proved the cluster's and committed to.
   */
  #notOwned(ref: InstanceRef, misplaced?: string): OwnershipVerdict {
    if (misplaced) return { owned: false, reason: 'wrong-region', detail: misplaced };
    const detail = `instance ${ref.instanceId} not found in region ${this.#region} with these credentials (ECS answered InvalidInstanceId.NotFound)`;
    return { owned: false, reason: 'not-found', detail };
  }

  /** Why this fencer cannot speak for the instance, or `undefined` when it can. */
  #regionProblem(ref: InstanceRef): string | undefined {
    if (ref.provider !== ProviderName.Alicloud)
      return `instance ref of provider "${ref.provider}" given to the ECS fencer`;
    const region = regionOfRef(ref);
    if (region !== undefined && region !== this.#region)
      return `providerID names region ${region}, outside region ${this.#region}`;
    return undefined;
  }

  /** Asking another region about an instance would answer "not found": refuse instead. */
  #assertInRegion(ref: InstanceRef): void {
    if (ref.provider !== ProviderName.Alicloud) {
      throw new ProviderIdError(
        ref.instanceId,
        `instance ref of provider "${ref.provider}" given to the ECS fencer`,
      );
    }
    const region = regionOfRef(ref);
    if (region !== undefined && region !== this.#region) {
      throw new RegionMismatchError(ref.instanceId, `its providerID names region ${region}`, this.#region);
    }
  }

  /** DescribeInstances for one instance; `undefined` only when ECS proves it does not exist. */
  async #describe(ref: InstanceRef, signal?: AbortSignal): Promise<Described | undefined> {
    this.#assertInRegion(ref);
    const found = await describeInstances(this.#reader, [ref.instanceId], { signal });
    const instance = found.get(ref.instanceId);
    if (instance) return { ...instance, instanceId: ref.instanceId };
    await confirmAbsent(this.#reader, ref.instanceId, signal);
    return undefined;
  }
}
