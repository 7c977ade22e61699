/**
 * Leader election for `fencer controller`, with client-go's rules: a replica takes the Lease only when
 * it is free or its holder has not renewed it for a whole lease duration; the leader renews every retry
 * period and steps down (stops every run it leads) once it has failed to renew for the renew deadline,
 * which is shorter than the lease duration, so it has stopped before any other replica may take over.
 *
 * A holder's silence is measured on this replica's own monotonic clock, from the moment it last saw the
 * record change, never by comparing the holder's written renewTime with a local wall clock: two replicas
 * whose clocks disagree still agree on who leads.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { AuditLog } from '../../ports/audit.js';
import type { LeaderLock, LeaderRecord, ReadLeaderRecord } from '../../ports/leadership.js';

export interface ElectionTiming {
  /** How long a holder that stopped renewing keeps the Lease. */
  readonly leaseDurationSeconds: number;
  /** How long the leader keeps leading while its renewals fail. Below the lease duration. */
  readonly renewDeadlineSeconds: number;
  /** How often the leader renews and the others try. */
  readonly retryPeriodSeconds: number;
}

/** client-go's defaults (controller-runtime's too). */
export const DEFAULT_ELECTION_TIMING: ElectionTiming = {
  leaseDurationSeconds: 15,
  renewDeadlineSeconds: 10,
  retryPeriodSeconds: 2,
};

/** The clock and the pause, injected so the rules are tested without waiting. */
export interface ElectionClock {
  /** Monotonic milliseconds. */
  readonly monotonicMs: () => number;
  readonly wallNow: () => Date;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

const realClock: ElectionClock = {
  monotonicMs: () => performance.now(),
  wallNow: () => new Date(),
  sleep: (ms, signal) => sleepFor(ms, undefined, { signal }).catch(() => {}),
};

/** What a term can ask of the election while it leads. */
export interface Leadership {
  /**
   * Whether this replica still leads, read from the Lease now (not remembered): it holds the Lease and
   * renewed it within the renew deadline. A replica that finds it does not steps down at once (its term
   * aborts) before answering false. Asked right before an action that must be taken once (a power-off),
   * so that a leader paused past its lease (a long GC, a frozen VM) does not act after another took over.
   */
  confirm(): Promise<boolean>;
}

/** What the leader runs for as long as it leads: `term` aborts when it steps down. */
export type LeadFn = (term: AbortSignal, leadership: Leadership) => Promise<void>;

export interface LeaderElectorOptions {
  readonly lock: LeaderLock;
  readonly identity: string;
  readonly timing?: ElectionTiming;
  readonly log: AuditLog;
  /** Told when this replica starts (true) or stops (false) leading. */
  readonly onLeadership?: (leading: boolean) => void;
  readonly clock?: ElectionClock;
}

/** Refuses timings where a leader could still act after another replica took over. */
export function assertTiming(timing: ElectionTiming): void {
  const { leaseDurationSeconds: lease, renewDeadlineSeconds: renew, retryPeriodSeconds: retry } = timing;
  if (!(retry > 0 && renew > retry && lease > renew)) {
    throw new RangeError(
      `leader election needs lease duration (${lease}s) > renew deadline (${renew}s) > retry period (${retry}s) > 0`,
    );
  }
}

export class LeaderElector {
  readonly #options: LeaderElectorOptions;
  readonly #timing: ElectionTiming;
  readonly #clock: ElectionClock;
  /** The record as last seen, and when (monotonic): a holder's silence is counted from here. */
  #observed: { key: string; atMs: number } | null = null;
  #leading = false;
  /** When this replica last renewed the Lease (monotonic). */
  #renewedAtMs = 0;

  constructor(options: LeaderElectorOptions) {
    this.#options = options;
    this.#timing = options.timing ?? DEFAULT_ELECTION_TIMING;
    assertTiming(this.#timing);
    this.#clock = options.clock ?? realClock;
  }

  get leading(): boolean {
    return this.#leading;
  }

  /**
   * Campaigns until `signal` aborts; while leading, runs `lead`. A `lead` that throws ends the run with
   * its error, after the Lease is given back. On `signal`, the term is stopped, `lead` is awaited, and
   * the Lease is given back so another replica takes over at once.
   */
  async run(lead: LeadFn, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.#tryAcquireOrRenew())) {
        await this.#clock.sleep(this.#jittered(), signal);
        continue;
      }
      await this.#lead(lead, signal);
    }
  }

  /** One term: runs `lead` and renews until the renewals fail for the renew deadline, or `signal`. */
  async #lead(lead: LeadFn, signal: AbortSignal): Promise<void> {
    const term = new AbortController();
    this.#setLeading(true);
    let failure: unknown = null;
    this.#renewedAtMs = this.#clock.monotonicMs();
    const leadership: Leadership = { confirm: () => this.#confirm(term) };
    const leading = lead(term.signal, leadership).catch((error: unknown) => {
      failure = error;
      term.abort(error);
    });
    const stop = (): void => term.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    try {
      while (!term.signal.aborted) {
        await this.#clock.sleep(this.#timing.retryPeriodSeconds * 1000, term.signal);
        if (term.signal.aborted) break;
        if (await this.#tryAcquireOrRenew()) {
          this.#renewedAtMs = this.#clock.monotonicMs();
        } else if (
          this.#clock.monotonicMs() - this.#renewedAtMs >=
          this.#timing.renewDeadlineSeconds * 1000
        ) {
          this.#options.log.warn(
            'leadership lost: the Lease could not be renewed within the renew deadline',
            {
              lease: this.#options.lock.describe(),
              identity: this.#options.identity,
            },
          );
          term.abort(new Error('leadership lost'));
        }
      }
    } finally {
      signal.removeEventListener('abort', stop);
      await leading;
      this.#setLeading(false);
    }
    if (signal.aborted || failure !== null) await this.#release();
    if (failure !== null) throw failure;
  }

  #setLeading(leading: boolean): void {
    if (this.#leading === leading) return;
    this.#leading = leading;
    this.#options.log.info(leading ? 'started leading' : 'stopped leading', {
      lease: this.#options.lock.describe(),
      identity: this.#options.identity,
    });
    this.#options.onLeadership?.(leading);
  }

  async #confirm(term: AbortController): Promise<boolean> {
    if (term.signal.aborted) return false;
    const fresh = this.#clock.monotonicMs() - this.#renewedAtMs < this.#timing.renewDeadlineSeconds * 1000;
    const read = await this.#options.lock.read().catch(() => null);
    if (fresh && read?.record?.holder === this.#options.identity) return true;
    this.#options.log.warn('leadership not confirmed before an action: stepping down', {
      lease: this.#options.lock.describe(),
      identity: this.#options.identity,
      holder: read?.record?.holder ?? null,
    });
    term.abort(new Error('leadership not confirmed'));
    return false;
  }

  /** Whether this replica holds the Lease after this attempt (client-go's tryAcquireOrRenew). */
  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = this.#clock.wallNow().toISOString();
    const mine = (previous: LeaderRecord | null): LeaderRecord => {
      const held = previous?.holder === this.#options.identity;
      return {
        holder: this.#options.identity,
        leaseDurationSeconds: this.#timing.leaseDurationSeconds,
        acquireTime: held && previous ? previous.acquireTime : now,
        renewTime: now,
        transitions: held ? (previous?.transitions ?? 0) : (previous?.transitions ?? -1) + 1,
      };
    };
    try {
      const read = await this.#options.lock.read();
      if (read === null) return await this.#options.lock.create(mine(null));
      if (!this.#free(read)) return false;
      return await this.#options.lock.update(read.resourceVersion, mine(read.record));
    } catch (error) {
      this.#options.log.warn('leader election: the Lease could not be read or written', {
        lease: this.#options.lock.describe(),
        error: (error as Error).message,
      });
      return false;
    }
  }

  /** Whether this replica may write the record: it holds it, nobody does, or its holder fell silent. */
  #free(read: ReadLeaderRecord): boolean {
    const record = read.record;
    const nowMs = this.#clock.monotonicMs();
    const key = record ? `${record.holder}\n${record.renewTime}\n${read.resourceVersion}` : '';
    if (this.#observed?.key !== key) this.#observed = { key, atMs: nowMs };
    if (record === null || record.holder === this.#options.identity) return true;
    const silentMs = nowMs - this.#observed.atMs;
    return silentMs >= Math.max(record.leaseDurationSeconds, 1) * 1000;
  }

  /** Gives the Lease back (client-go's ReleaseOnCancel): an empty holder lets the next replica take it now. */
  async #release(): Promise<void> {
    try {
      const read = await this.#options.lock.read();
      if (read?.record?.holder !== this.#options.identity) return;
      const now = this.#clock.wallNow().toISOString();
      await this.#options.lock.update(read.resourceVersion, {
        ...read.record,
        holder: '',
        leaseDurationSeconds: 1,
        renewTime: now,
      });
    } catch (error) {
      this.#options.log.warn('could not give the leader Lease back; it lapses after its duration', {
        error: (error as Error).message,
      });
    }
  }

  /** The retry period with client-go's jitter (up to 1.2 times), so replicas do not try in step. */
  #jittered(): number {
    return this.#timing.retryPeriodSeconds * 1000 * (1 + Math.random() * 0.2);
  }
}
