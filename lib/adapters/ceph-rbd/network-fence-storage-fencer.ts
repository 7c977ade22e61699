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
import { createHash } from 'node:crypto';
import { BlocklistEntryKind, type BlocklistEvidence, type FenceEntry } from '../../domain/blocklist.js';
import type { ListedRecordedEntry } from '../../domain/fence-upkeep.js';
import type { AddressHolder } from '../../domain/storage-scope.js';
import type { NetworkFenceObject, NetworkFenceSpec, NetworkFences } from '../../ports/network-fences.js';
import {
  type StorageCallOptions,
  type StorageDaemons,
  StorageFault,
  type StorageFenceOutcome,
  type StorageFencer,
  type StorageFenceTarget,
  type StorageLiftOutcome,
  type StorageLiftRequest,
  type StorageMutationOptions,
  type StorageVolumeRef,
  type StorageWitness,
} from '../../ports/storage-fencer.js';
import { evaluateBlocklist, type ListedEntry, parseBlocklist } from './blocklist.js';
import { runCephTool } from './cli-tool.js';
import { cephCsiClusterOf } from './cluster-id.js';
import { BlocklistDialect } from './commands.js';
import { DAEMONS_TTL_MS, parseMonDump } from './daemons.js';
import { CephApiError, CephInputError } from './errors.js';
import { type CephFencerLogger, silentLogger } from './logger.js';
import { assertSomethingToFence, isRbdDriver, planEntries, recordedAsListed, recordedEntry } from './plan.js';
import type { CephNetworkFenceSettings } from './settings.js';
import { RbdStatusWitness } from './witness.js';

/** Marks a NetworkFence as kube-fencer's; one without it is never touched. */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'kube-fencer' } as const;
/** The node a NetworkFence fences (its name may be shortened). */
export const NODE_ANNOTATION = 'kube-fencer.io/node';
/** csi-addons' own messages: `status.result` names no generation, the message names the operation. */
const FENCED_MESSAGE = 'fencing operation successful';
const UNFENCED_MESSAGE = 'unfencing operation successful';
const POLL_MS = 500;

export interface NetworkFenceStorageFencerProps {
  readonly settings: CephNetworkFenceSettings;
  readonly fences: NetworkFences;
  readonly logger?: CephFencerLogger;
  readonly now?: () => Date;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The NetworkFence of a node: `kube-fencer-<node>`, or a hash of the name where that is too long. */
export function networkFenceName(node: string): string {
  const name = `kube-fencer-${node}`;
  return name.length <= 253
    ? name
    : `kube-fencer-${createHash('sha256').update(node).digest('hex').slice(0, 32)}`;
}

const isOurs = (fence: NetworkFenceObject, node: string): boolean =>
  fence.labels['app.kubernetes.io/managed-by'] === MANAGED_BY['app.kubernetes.io/managed-by'] &&
  fence.annotations[NODE_ANNOTATION] === node;

const notOursText = (fence: NetworkFenceObject, node: string): string =>
  `NetworkFence ${fence.name} exists and is not kube-fencer's for node ${node} (label app.kubernetes.io/managed-by=kube-fencer, annotation ${NODE_ANNOTATION}): the fencer neither changes nor lifts it`;

/** Not the fencer's to change: a state to refuse at once (nothing is written), never to retry. */
const notOurs = (fence: NetworkFenceObject, node: string): CephInputError =>
  new CephInputError(notOursText(fence, node));

/** The same, seen while observing: a storage fault the decision refuses with its own reason. */
const foreignFence = (fence: NetworkFenceObject, node: string): CephApiError =>
  new CephApiError(
    { fault: StorageFault.FenceNotOurs, operation: `get NetworkFence ${fence.name}`, retryable: false },
    notOursText(fence, node),
  );

export class NetworkFenceStorageFencer implements StorageFencer {
  readonly storage = 'ceph-rbd';
  readonly witness: StorageWitness;
  readonly storageClusters: readonly string[] | null;
  readonly #settings: CephNetworkFenceSettings;
  readonly #fences: NetworkFences;
  readonly #logger: CephFencerLogger;
  readonly #now: () => Date;
  readonly #sleep: (ms: number) => Promise<void>;
  #daemons: { readonly value: StorageDaemons; readonly readAt: number } | undefined;

  constructor(props: NetworkFenceStorageFencerProps) {
    this.#settings = props.settings;
    this.#fences = props.fences;
    this.#logger = props.logger ?? silentLogger;
    this.#now = props.now ?? (() => new Date());
    this.#sleep = props.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.storageClusters = props.settings.clusterIds.length > 0 ? props.settings.clusterIds : null;
    this.witness = new RbdStatusWitness(props.settings.witness, this.#now);
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

    const after = await this.#until(name, options.signal, FENCED_MESSAGE, async () => {
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
    await this.#until(name, options.signal, UNFENCED_MESSAGE, async (current) => {
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

  /**
   * Polls until `done` answers (Ceph's own list, as a rule), failing on csi-addons' `Failed` for this
   * operation, on the signal, or after `fenceTimeoutSeconds`.
   */
  async #until<T>(
    name: string,
    signal: AbortSignal | undefined,
    successMessage: string,
    done: (current: NetworkFenceObject | null) => Promise<T | undefined>,
  ): Promise<T> {
    const deadline = this.#now().getTime() + this.#settings.fenceTimeoutSeconds * 1000;
    let last: NetworkFenceObject | null = null;
    for (;;) {
      // The step's budget ran out (or the run was stopped): a storage call that did not finish, which
      // the next step asks again, never an error that ends the run.
      if (signal?.aborted) {
        throw new CephApiError(
          { fault: 'BlocklistNotConfirmed', operation: `networkfence ${name}`, retryable: true },
          `no "${successMessage}" confirmed by Ceph's own blocklist before the step's budget ran out`,
        );
      }
      last = await this.#fences.get(name, { ...(signal ? { signal } : {}) });
      const answer = await done(last);
      if (answer !== undefined) return answer;
      if (last?.result === 'Failed') {
        throw new CephApiError(
          { fault: 'CommandFailed', operation: `networkfence ${name}`, retryable: true },
          `csi-addons says it failed: ${last.message ?? '(no message)'}`,
        );
      }
      if (this.#now().getTime() >= deadline) {
        const said = last?.result
          ? `csi-addons says ${last.result}: ${last.message ?? ''}`
          : 'csi-addons has not answered';
        throw new CephApiError(
          { fault: 'BlocklistNotConfirmed', operation: `networkfence ${name}`, retryable: true },
          `no "${successMessage}" confirmed by Ceph's own blocklist after ${this.#settings.fenceTimeoutSeconds} s (${said})`,
        );
      }
      await this.#sleep(POLL_MS);
    }
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

const withoutUntil = ({ kind, entry, source }: FenceEntry): FenceEntry => ({ kind, entry, source });

const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])];
