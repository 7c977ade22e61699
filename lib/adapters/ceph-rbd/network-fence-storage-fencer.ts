/**
 * {@link StorageFencer} for a Ceph run by Rook or OpenShift Data Foundation (or any Ceph without the
 * restful module, Ceph 20 included): the fencer asks the cluster's own ceph-csi to blocklist the node's
 * CIDRs through one csi-addons NetworkFence per node, and takes nothing from csi-addons' word. Each
 * fence is proven, and each lift confirmed, from Ceph's own blocklist, read by the read-only user.
 *
 * The NetworkFence is the record: it exists in the API server before ceph-csi adds any entry, it names
 * the node and every CIDR, and `unfence` lifts exactly what it lists (Fenced → Unfenced, then delete),
 * whatever addresses the node has by then. A NetworkFence of that name that kube-fencer did not make is
 * never changed or lifted.
 */
import { BlocklistEntryKind, type BlocklistEvidence, type FenceEntry } from '../../domain/blocklist.js';
import type { ListedRecordedEntry } from '../../domain/fence-upkeep.js';
import type { AddressHolder } from '../../domain/storage-scope.js';
import type { NetworkFenceSpec, NetworkFences } from '../../ports/network-fences.js';
import type {
  StorageCallOptions,
  StorageDaemons,
  StorageFenceOutcome,
  StorageFencer,
  StorageFenceTarget,
  StorageLiftOutcome,
  StorageLiftRequest,
  StorageMutationOptions,
  StorageVolumeRef,
  StorageWitness,
} from '../../ports/storage-fencer.js';
import { evaluateBlocklist, type ListedEntry, parseBlocklist } from './blocklist.js';
import { runCephTool } from './cli-tool.js';
import { cephCsiClusterOf } from './cluster-id.js';
import { BlocklistDialect } from './commands.js';
import { DAEMONS_TTL_MS, parseMonDump } from './daemons.js';
import { CephApiError } from './errors.js';
import { withoutUntil } from './fence-evidence.js';
import { type CephFencerLogger, silentLogger } from './logger.js';
import {
  foreignFence,
  isOurs,
  MANAGED_BY,
  NODE_ANNOTATION,
  networkFenceName,
  notOurs,
} from './network-fence-ownership.js';
import { type NetworkFencePoll, pollNetworkFence } from './network-fence-poll.js';
import { assertSomethingToFence, isRbdDriver, planEntries, recordedAsListed, recordedEntry } from './plan.js';
import type { CephNetworkFenceSettings } from './settings.js';
import { RbdStatusWitness } from './witness.js';

/** csi-addons' own messages: `status.result` names no generation, the message names the operation. */
const FENCED_MESSAGE = 'fencing operation successful';
const UNFENCED_MESSAGE = 'unfencing operation successful';

export { networkFenceName } from './network-fence-ownership.js';

export interface NetworkFenceStorageFencerProps {
  readonly settings: CephNetworkFenceSettings;
  readonly fences: NetworkFences;
  readonly logger?: CephFencerLogger;
  readonly now?: () => Date;
  readonly sleep?: (ms: number) => Promise<void>;
}

export class NetworkFenceStorageFencer implements StorageFencer {
  readonly storage = 'ceph-rbd';
  readonly witness: StorageWitness;
  readonly storageClusters: readonly string[] | null;
  readonly #settings: CephNetworkFenceSettings;
  readonly #fences: NetworkFences;
  readonly #logger: CephFencerLogger;
  readonly #now: () => Date;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #poll: NetworkFencePoll;
  #daemons: { readonly value: StorageDaemons; readonly readAt: number } | undefined;

  constructor(props: NetworkFenceStorageFencerProps) {
    this.#settings = props.settings;
    this.#fences = props.fences;
    this.#logger = props.logger ?? silentLogger;
    this.#now = props.now ?? (() => new Date());
    this.#sleep = props.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.storageClusters = props.settings.clusterIds.length > 0 ? props.settings.clusterIds : null;
    this.witness = new RbdStatusWitness(props.settings.witness, this.#now);
    this.#poll = {
      fences: this.#fences,
      now: this.#now,
      sleep: this.#sleep,
      timeoutSeconds: props.settings.fenceTimeoutSeconds,
    };
  }

  storageClusterOf(volume: {
    readonly attributes?: Readonly<Record<string, string>>;
    readonly handle?: string;
  }): string | undefined {
    return cephCsiClusterOf(volume);
  }

  fencesVolume(volume: StorageVolumeRef): boolean {
    return isRbdDriver(volume.driver, this.#settings.csiDrivers);
  }

  /**
   * Ceph's list, judged for the node. A NetworkFence of the node's name that is not the fencer's is
   * refused here, before any decision (fault `FenceNotOurs`, not retryable): the fencer would have to
   * change it to fence the node, and lift it later.
   */
  async verify(target: StorageFenceTarget, options: StorageCallOptions = {}): Promise<BlocklistEvidence> {
    const existing = await this.#fences.get(networkFenceName(target.node), options);
    if (existing && !isOurs(existing, target.node)) throw foreignFence(existing, target.node);
    return this.#evaluate(target.node, this.#plan(target), await this.#list(options.signal));
  }

  /** The mons, from `mon dump` as the read-only user (kept for five minutes, as the monmap rarely moves). */
  async storageDaemons(options: StorageCallOptions = {}): Promise<StorageDaemons> {
    const cached = this.#daemons;
    if (cached && this.#now().getTime() - cached.readAt < DAEMONS_TTL_MS) return cached.value;
    const out = await runCephTool(
      'ceph',
      ['mon', 'dump', '--format', 'json'],
      this.#settings.witness,
      'mon dump',
      options.signal,
    );
    let daemons: AddressHolder[];
    try {
      daemons = parseMonDump(out);
    } catch (error) {
      throw new CephApiError(
        { fault: 'CommandFailed', operation: 'mon dump', retryable: false },
        `unreadable monmap: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const value = { source: `mon dump as client.${this.#settings.witness.user}`, daemons };
    this.#daemons = { value, readAt: this.#now().getTime() };
    return value;
  }

  async fence(target: StorageFenceTarget, options: StorageMutationOptions): Promise<StorageFenceOutcome> {
    const expected = this.#plan(target);
    const before = this.#evaluate(target.node, expected, await this.#list(options.signal));
    if (before.confirmed) return { kind: 'already-fenced', evidence: before };
    const name = networkFenceName(target.node);
    const existing = await this.#fences.get(name, options);
    // Made by someone else since this step's verify: the same storage fault, so the step is tried
    // again and its verify refuses the run with its reason (StorageFenceNotOurs) and a report.
    if (existing && !isOurs(existing, target.node)) throw foreignFence(existing, target.node);
    const missing = before.missing.map((m) => m.entry);
    if (options.dryRun) {
      return { kind: 'dry-run', wouldAdd: before.missing.map(withoutUntil), evidence: before };
    }
    if (existing?.deleting) {
      throw new CephApiError(
        { fault: 'CommandFailed', operation: `networkfence ${name}`, retryable: true },
        `NetworkFence ${name} is being deleted; the fence is tried again once it is gone`,
      );
    }
    // Fenced already: its CIDRs stay and the missing ones join them. Unfenced (a lift that did not
    // finish): its CIDRs are no longer on the list, so only what is missing now is fenced.
    const cidrs = existing?.fenceState === 'Fenced' ? union(existing.cidrs, missing) : union([], missing);
    const spec: NetworkFenceSpec = {
      networkFenceClassName: this.#settings.networkFenceClass,
      fenceState: 'Fenced',
      cidrs,
    };
    const annotations = { [NODE_ANNOTATION]: target.node };
    if (existing) await this.#fences.update(existing, spec, annotations, options);
    else await this.#fences.create(name, spec, { labels: { ...MANAGED_BY }, annotations }, options);
    this.#logger.info('NetworkFence requested', { node: target.node, networkFence: name, cidrs });

    const after = await pollNetworkFence(this.#poll, name, options.signal, FENCED_MESSAGE, async () => {
      const evidence = this.#evaluate(target.node, expected, await this.#list(options.signal));
      return evidence.confirmed ? evidence : undefined;
    });
    const added = new Set(missing);
    return {
      kind: 'fenced',
      added: after.found.filter((e) => added.has(e.entry)),
      alreadyPresent: after.found.filter((e) => !added.has(e.entry)),
      evidence: after,
    };
  }

  async lift(request: StorageLiftRequest, options: StorageMutationOptions): Promise<StorageLiftOutcome> {
    // Validate everything before the first call: bad input mutates nothing.
    const entries = request.entries.map(recordedEntry);
    if (entries.length === 0)
      return { kind: 'nothing-to-lift', detail: `no entries recorded for ${request.node}` };
    const name = networkFenceName(request.node);
    const fence = await this.#fences.get(name, options);
    if (fence && !isOurs(fence, request.node)) throw notOurs(fence, request.node);
    const listed = await this.#list(options.signal);
    const onList = (cidr: string) =>
      listed.some((l) => l.kind === BlocklistEntryKind.Range && l.entry === cidr);
    if (!fence) {
      // Deleted while Fenced, ceph-csi leaves its entries: "nothing to lift" only if Ceph lists none.
      const left = entries.filter((e) => onList(e.entry));
      if (left.length === 0) {
        return {
          kind: 'nothing-to-lift',
          detail: `no NetworkFence ${name}, and Ceph lists none of ${request.node}'s entries`,
        };
      }
      throw new CephApiError(
        { fault: 'CommandFailed', operation: `networkfence ${name}`, retryable: false },
        `NetworkFence ${name} is gone, yet Ceph still lists ${left.map((e) => e.entry).join(', ')} recorded for ${request.node}: lift with \`ceph osd blocklist range rm <cidr>\``,
      );
    }
    const outside = entries.filter((e) => !fence.cidrs.includes(e.entry) && onList(e.entry));
    if (options.dryRun) return { kind: 'dry-run', wouldRemove: [...fence.cidrs] };
    if (fence.fenceState === 'Fenced') {
      await this.#fences.update(
        fence,
        {
          networkFenceClassName: fence.networkFenceClassName ?? this.#settings.networkFenceClass,
          fenceState: 'Unfenced',
          cidrs: fence.cidrs,
        },
        { [NODE_ANNOTATION]: request.node },
        options,
      );
    }
    await pollNetworkFence(this.#poll, name, options.signal, UNFENCED_MESSAGE, async (current) => {
      if (current?.message !== UNFENCED_MESSAGE) return undefined;
      const now = await this.#list(options.signal);
      return fence.cidrs.some((c) => now.some((l) => l.kind === BlocklistEntryKind.Range && l.entry === c))
        ? undefined
        : true;
    });
    const unfenced = await this.#fences.get(name, options);
    if (unfenced) await this.#fences.delete(unfenced, options);
    this.#logger.info('NetworkFence lifted', { node: request.node, networkFence: name, cidrs: fence.cidrs });
    if (outside.length > 0) {
      throw new CephApiError(
        { fault: 'CommandFailed', operation: `networkfence ${name}`, retryable: false },
        `lifted NetworkFence ${name}, but ${outside.map((e) => e.entry).join(', ')} ${outside.length === 1 ? 'is' : 'are'} recorded for ${request.node} and not in it (added another way): lift with \`ceph osd blocklist range rm <cidr>\``,
      );
    }
    return { kind: 'lifted', removed: [...fence.cidrs] };
  }

  /** The recorded CIDRs as Ceph's own list shows them (ceph-csi's last for years: none is renewed). */
  async readRecorded(
    request: StorageLiftRequest,
    options: StorageCallOptions = {},
  ): Promise<readonly ListedRecordedEntry[]> {
    request.entries.forEach(recordedEntry); // bad input fails before any call
    return recordedAsListed(request.entries, await this.#list(options.signal));
  }

  #plan(target: StorageFenceTarget): FenceEntry[] {
    assertSomethingToFence(target, this.#settings);
    // NetworkFence takes CIDRs: one range per address or configured range, as ceph-csi adds them.
    return planEntries(target, this.#settings, BlocklistDialect.Range);
  }

  #evaluate(
    node: string,
    expected: readonly FenceEntry[],
    listed: readonly ListedEntry[],
  ): BlocklistEvidence {
    return evaluateBlocklist({
      node,
      expected,
      listed,
      observedAt: this.#now(),
      minRemainingSeconds: this.#settings.minRemainingSeconds,
    });
  }

  async #list(signal?: AbortSignal): Promise<ListedEntry[]> {
    const out = await runCephTool(
      'ceph',
      ['osd', 'blocklist', 'ls', '--format', 'json'],
      this.#settings.witness,
      'osd blocklist ls',
      signal,
    );
    return parseBlocklist(out);
  }
}

const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])];
