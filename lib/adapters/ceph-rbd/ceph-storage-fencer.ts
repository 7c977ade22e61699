import type { BlocklistEvidence, FenceEntry } from '../../domain/blocklist.js';
import type { ListedRecordedEntry } from '../../domain/fence-upkeep.js';
import type {
  StorageCallOptions,
  StorageDaemons,
  StorageFenceOutcome,
  StorageFencer,
  StorageFenceTarget,
  StorageLiftOutcome,
  StorageLiftRequest,
  StorageMutationOptions,
  StorageRenewOutcome,
  StorageVolumeRef,
  StorageWitness,
} from '../../ports/storage-fencer.js';
import { evaluateBlocklist, type ListedEntry } from './blocklist.js';
import { cephCsiClusterOf } from './cluster-id.js';
import { addCommand, type BlocklistDialect, type MonCommand, removeCommand } from './commands.js';
import { DAEMONS_TTL_MS, readStorageDaemons } from './daemons.js';
import { CephApiError } from './errors.js';
import { entryKey, notConfirmed, withoutUntil } from './fence-evidence.js';
import { type CephFencerLogger, silentLogger } from './logger.js';
import { askDialect, changeThenReadBlocklist, readBlocklist } from './mon-reads.js';
import { assertSomethingToFence, isRbdDriver, planEntries, recordedAsListed, recordedEntry } from './plan.js';
import { renewEntries } from './renew.js';
import { RestfulClient } from './restful-client.js';
import type { CephRbdSettings } from './settings.js';
import { RbdStatusWitness } from './witness.js';

/** Configuration of {@link CephRbdStorageFencer}. */
export interface CephRbdStorageFencerProps {
  /** Validated settings (`parseCephRbdSettings`). */
  readonly settings: CephRbdSettings;
  /**
   * The REST client, injected by the composition root (or a test).
   * @default a RestfulClient built from `settings`
   */
  readonly client?: RestfulClient;
  /** @default a logger that drops everything */
  readonly logger?: CephFencerLogger;
  /** The clock that stamps observations. @default () => new Date() */
  readonly now?: () => Date;
}

export { DAEMONS_TTL_MS } from './daemons.js';

/**
 * {@link StorageFencer} for Ceph RBD: blocklists a node's client addresses in the OSD map through the
 * ceph-mgr `restful` API. An OSD drops a blocklisted client's watches and refuses its I/O as soon as it
 * sees the new map, so the node's old librbd/krbd clients lose their image locks and cannot write, even
 * if the machine is still running.
 */
export class CephRbdStorageFencer implements StorageFencer {
  readonly storage = 'ceph-rbd';
  readonly witness: StorageWitness | undefined;
  readonly storageClusters: readonly string[] | null;
  /**
   * Half the expiry (a week: three and a half days), never less than the shortest an entry may have
   * left and still prove the fence: a sweep every 15 minutes has days to lengthen an entry.
   */
  readonly renewWithinSeconds: number;
  readonly #settings: CephRbdSettings;
  readonly #client: RestfulClient;
  readonly #logger: CephFencerLogger;
  readonly #now: () => Date;
  #dialect: Promise<BlocklistDialect> | undefined;
  #daemons: { readonly value: StorageDaemons; readonly readAt: number } | undefined;

  constructor(props: CephRbdStorageFencerProps) {
    this.#settings = props.settings;
    this.#client =
      props.client ??
      new RestfulClient({
        urls: [props.settings.mgrUrl, ...props.settings.standbyMgrUrls],
        keyName: props.settings.keyName,
        key: props.settings.key,
        ca: props.settings.ca,
        serverName: props.settings.serverName,
        fingerprintSha256: props.settings.fingerprintSha256,
        timeoutMs: props.settings.timeoutMs,
        attempts: props.settings.attempts,
        backoffMs: props.settings.backoffMs,
      });
    this.#logger = props.logger ?? silentLogger;
    this.#now = props.now ?? (() => new Date());
    this.storageClusters = props.settings.clusterIds.length > 0 ? props.settings.clusterIds : null;
    this.renewWithinSeconds = Math.max(
      props.settings.minRemainingSeconds,
      Math.floor(props.settings.blocklistExpireSeconds / 2),
    );
    this.witness = props.settings.witness
      ? new RbdStatusWitness(props.settings.witness, this.#now)
      : undefined;
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

  async verify(target: StorageFenceTarget, options: StorageCallOptions = {}): Promise<BlocklistEvidence> {
    const expected = await this.#plan(target, options.signal);
    return this.#observe(target.node, expected, options.signal);
  }

  /**
   * The daemons' addresses, read once and kept for {@link DAEMONS_TTL_MS}: the monmap rarely changes,
   * and every command through the restful module is one more completion in the mgr (ceph-mgr 16.2.15
   * on Python 3.11 now and then segfaults completing one, in `MonCommandCompletion::finish`). A failed
   * read is asked again next time.
   */
  async storageDaemons(options: StorageCallOptions = {}): Promise<StorageDaemons> {
    const cached = this.#daemons;
    if (cached && this.#now().getTime() - cached.readAt < DAEMONS_TTL_MS) return cached.value;
    const urls = [this.#settings.mgrUrl, ...this.#settings.standbyMgrUrls];
    const value = await readStorageDaemons(this.#client, urls, options.signal);
    this.#daemons = { value, readAt: this.#now().getTime() };
    return value;
  }

  async fence(target: StorageFenceTarget, options: StorageMutationOptions): Promise<StorageFenceOutcome> {
    const expected = await this.#plan(target, options.signal);
    const before = await this.#observe(target.node, expected, options.signal);
    if (before.confirmed) return { kind: 'already-fenced', evidence: before };
    const toAdd = before.missing.map(withoutUntil);
    if (options.dryRun) return { kind: 'dry-run', wouldAdd: toAdd, evidence: before };

    const dialect = await this.#resolveDialect(options.signal);
    const changeThenList = (changes: readonly MonCommand[]) =>
      changeThenReadBlocklist(this.#client, dialect, changes, options.signal);
    const expire = this.#settings.blocklistExpireSeconds;
    const absent = before.missing.filter((m) => m.until === undefined).map(withoutUntil);
    const lapsing = before.missing.filter((m) => m.until !== undefined).map(withoutUntil);
    // Every absent entry, one request each, then read back.
    let listed =
      absent.length > 0 ? await changeThenList(absent.map((e) => addCommand(e, dialect, expire))) : undefined;
    // An entry that is there but lapses too soon cannot be lengthened in place (Ceph keeps its expiry).
    await renewEntries(lapsing, {
      node: target.node,
      dialect,
      expireSeconds: expire,
      maxAddressesPerRange: this.#settings.maxAddressesPerRange,
      changeThenList,
    });
    this.#logger.info('Ceph blocklist entries added', {
      node: target.node,
      added: absent.map((e) => e.entry),
      renewed: lapsing.map((e) => e.entry),
    });

    if (lapsing.length > 0 || listed === undefined) listed = await changeThenList([]);
    const after = this.#evaluate(target.node, expected, listed);
    if (!after.confirmed) throw notConfirmed(target.node, after);
    const added = new Set(toAdd.map(entryKey));
    return {
      kind: 'fenced',
      added: after.found.filter((e) => added.has(entryKey(e))),
      alreadyPresent: after.found.filter((e) => !added.has(entryKey(e))),
      evidence: after,
    };
  }

  async lift(request: StorageLiftRequest, options: StorageMutationOptions): Promise<StorageLiftOutcome> {
    // Validate everything before the first call: bad input mutates nothing.
    const entries = request.entries.map(recordedEntry);
    if (entries.length === 0)
      return { kind: 'nothing-to-lift', detail: `no entries recorded for ${request.node}` };
    const dialect = await this.#resolveDialect(options.signal);
    const listed = new Set((await this.#list(options.signal)).map(entryKey));
    const present = entries.filter((e) => listed.has(entryKey(e)));
    if (present.length === 0) {
      return {
        kind: 'nothing-to-lift',
        detail: `none of ${request.node}'s recorded entries is on the blocklist`,
      };
    }
    if (options.dryRun) return { kind: 'dry-run', wouldRemove: present.map((e) => e.entry) };
    const listedAfter = await changeThenReadBlocklist(
      this.#client,
      dialect,
      present.map((e) => removeCommand(e, dialect)),
      options.signal,
    );
    const still = new Set(listedAfter.map(entryKey));
    const left = present.filter((e) => still.has(entryKey(e)));
    if (left.length > 0) {
      throw new CephApiError(
        { fault: 'CommandFailed', operation: 'osd blocklist rm', retryable: true },
        `removed, yet still listed: ${left.map((e) => e.entry).join(', ')}`,
      );
    }
    this.#logger.info('Ceph blocklist entries lifted', {
      node: request.node,
      entries: present.map((e) => e.entry),
    });
    return { kind: 'lifted', removed: present.map((e) => e.entry) };
  }

  async readRecorded(
    request: StorageLiftRequest,
    options: StorageCallOptions = {},
  ): Promise<readonly ListedRecordedEntry[]> {
    request.entries.forEach(recordedEntry); // bad input fails before any call
    return recordedAsListed(request.entries, await this.#list(options.signal));
  }

  async renew(request: StorageLiftRequest, options: StorageMutationOptions): Promise<StorageRenewOutcome> {
    const entries = request.entries.map(recordedEntry);
    if (options.dryRun || entries.length === 0)
      return options.dryRun
        ? { kind: 'dry-run', wouldRenew: [...request.entries] }
        : { kind: 'renewed', renewed: [] };
    const dialect = await this.#resolveDialect(options.signal);
    const changeThenList = (changes: readonly MonCommand[]) =>
      changeThenReadBlocklist(this.#client, dialect, changes, options.signal);
    await renewEntries(entries, {
      node: request.node,
      dialect,
      expireSeconds: this.#settings.blocklistExpireSeconds,
      maxAddressesPerRange: this.#settings.maxAddressesPerRange,
      changeThenList,
    });
    const renewed = recordedAsListed(request.entries, await changeThenList([]));
    const shortOf = this.#now().getTime() + this.renewWithinSeconds * 1000;
    const short = renewed.filter((r) => r.until === null || Date.parse(r.until) < shortOf);
    if (short.length > 0) {
      throw new CephApiError(
        { fault: 'BlocklistNotConfirmed', operation: 'osd blocklist ls', retryable: true },
        `renewed ${request.node}'s entries, yet Ceph lists ${short.map((r) => `${r.entry} (${r.until ?? 'absent'})`).join(', ')}`,
      );
    }
    this.#logger.info('Ceph blocklist entries renewed', { node: request.node, renewed });
    return { kind: 'renewed', renewed };
  }

  /** Releases kept-alive connections. */
  close(): void {
    this.#client.close();
  }

  async #plan(target: StorageFenceTarget, signal?: AbortSignal): Promise<FenceEntry[]> {
    // Nothing to fence by is bad input: say so before talking to Ceph at all.
    assertSomethingToFence(target, this.#settings);
    return planEntries(target, this.#settings, await this.#resolveDialect(signal));
  }

  async #observe(
    node: string,
    expected: readonly FenceEntry[],
    signal?: AbortSignal,
  ): Promise<BlocklistEvidence> {
    return this.#evaluate(node, expected, await this.#list(signal));
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
    return readBlocklist(this.#client, await this.#resolveDialect(signal), signal);
  }

  /** The configured dialect, or the mon's own (asked once; a failed ask is asked again next time). */
  #resolveDialect(signal?: AbortSignal): Promise<BlocklistDialect> {
    const configured = this.#settings.dialect;
    if (configured !== 'auto') return Promise.resolve(configured);
    this.#dialect ??= this.#askDialect(signal).catch((error: unknown) => {
      this.#dialect = undefined;
      throw error;
    });
    return this.#dialect;
  }

  async #askDialect(signal?: AbortSignal): Promise<BlocklistDialect> {
    const dialect = await askDialect(this.#client, signal);
    this.#logger.debug('Ceph blocklist dialect', { dialect });
    return dialect;
  }
}
