/**
 * Leader election's rules, on an in-memory Lease with optimistic concurrency (as the API server's
 * resourceVersion gives) and a clock the test moves: two replicas never lead at once, a silent holder is
 * replaced only after a whole lease duration seen on the taker's own clock (whatever the holder wrote as
 * its renewTime), a leader that cannot renew steps down within the renew deadline, and a replica that
 * stops gives the Lease back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertTiming,
  type ElectionClock,
  type ElectionTiming,
  LeaderElector,
} from '../../../../lib/app/controller/leader-election.js';
import type { LeaderLock, LeaderRecord, ReadLeaderRecord } from '../../../../lib/ports/leadership.js';

const TIMING: ElectionTiming = { leaseDurationSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 2 };
const silent = { info() {}, warn() {}, error() {} };

/** A Lease in memory: writes must name the version read; `failing` makes every call throw (the API is gone). */
class MemoryLock implements LeaderLock {
  record: LeaderRecord | null = null;
  version = 0;
  exists = false;
  failing = new Set<string>();
  read = async (): Promise<ReadLeaderRecord | null> => {
    this.#check();
    return this.exists ? { record: this.record, resourceVersion: String(this.version) } : null;
  };
  create = async (record: LeaderRecord): Promise<boolean> => {
    this.#check();
    if (this.exists) return false;
    this.exists = true;
    this.record = record.holder ? record : null;
    this.version += 1;
    return true;
  };
  update = async (resourceVersion: string, record: LeaderRecord): Promise<boolean> => {
    this.#check();
    if (resourceVersion !== String(this.version)) return false;
    this.record = record.holder ? record : null;
    this.version += 1;
    return true;
  };
  describe = () => 'lease/test/leader';
  /** Calls from this identity fail while it is in `failing` (a partitioned replica). */
  caller = '';
  #check(): void {
    if (this.failing.has(this.caller)) throw new Error('connection refused');
  }
}

/** A shared virtual time: `sleep` resolves when `advance` passes its deadline. */
class VirtualTime {
  now = 0;
  #sleepers: { at: number; resolve: () => void }[] = [];
  clock(wallOffsetMs = 0): ElectionClock {
    return {
      monotonicMs: () => this.now,
      wallNow: () => new Date(Date.UTC(2026, 0, 1) + this.now + wallOffsetMs),
      sleep: (ms, signal) =>
        new Promise<void>((resolve) => {
          if (signal.aborted) return resolve();
          const sleeper = { at: this.now + ms, resolve };
          this.#sleepers.push(sleeper);
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
    };
  }
  /** Moves time on by `ms`, in small ticks, letting every woken task run. */
  async advance(ms: number, tick = 100): Promise<void> {
    for (let t = 0; t < ms; t += tick) {
      this.now += tick;
      const due = this.#sleepers.filter((s) => s.at <= this.now);
      this.#sleepers = this.#sleepers.filter((s) => s.at > this.now);
      for (const s of due) s.resolve();
      for (let i = 0; i < 20; i++) await Promise.resolve();
    }
  }
}

/** A replica whose lock calls are made as itself (so a partition can cut it alone). */
function replica(lock: MemoryLock, time: VirtualTime, identity: string, wallOffsetMs = 0) {
  const leadingLog: boolean[] = [];
  const as = <T>(call: () => Promise<T>): Promise<T> => {
    lock.caller = identity;
    return call();
  };
  const own: LeaderLock = {
    read: () => as(() => lock.read()),
    create: (r) => as(() => lock.create(r)),
    update: (v, r) => as(() => lock.update(v, r)),
    describe: () => lock.describe(),
  };
  const elector = new LeaderElector({
    lock: own,
    identity,
    timing: TIMING,
    log: silent,
    clock: time.clock(wallOffsetMs),
    onLeadership: (leading) => leadingLog.push(leading),
  });
  const stop = new AbortController();
  let terms = 0;
  let termActive = false;
  const running = elector.run(async (term) => {
    terms += 1;
    termActive = true;
    await new Promise<void>((resolve) => term.addEventListener('abort', () => resolve(), { once: true }));
    termActive = false;
  }, stop.signal);
  return {
    elector,
    stop,
    running,
    leadingLog,
    get terms() {
      return terms;
    },
    get termActive() {
      return termActive;
    },
  };
}

describe('leader election', () => {
  it('refuses timings where a leader could act after another took over', () => {
    expect(() =>
      assertTiming({ leaseDurationSeconds: 10, renewDeadlineSeconds: 10, retryPeriodSeconds: 2 }),
    ).toThrow(/lease duration/);
    expect(() =>
      assertTiming({ leaseDurationSeconds: 15, renewDeadlineSeconds: 2, retryPeriodSeconds: 2 }),
    ).toThrow();
    expect(() =>
      assertTiming({ leaseDurationSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 0 }),
    ).toThrow();
    expect(() => assertTiming(TIMING)).not.toThrow();
  });

  it('elects exactly one of two replicas, and the other stands by while the leader renews', async () => {
    const lock = new MemoryLock();
    const time = new VirtualTime();
    const a = replica(lock, time, 'a');
    const b = replica(lock, time, 'b');
    await time.advance(60_000);
    const leaders = [a, b].filter((r) => r.elector.leading);
    expect(leaders).toHaveLength(1);
    expect(lock.record?.holder).toBe(leaders[0] === a ? 'a' : 'b');
    expect(a.terms + b.terms).toBe(1);
    a.stop.abort();
    b.stop.abort();
    await time.advance(5000);
    await Promise.all([a.running, b.running]);
  });

  it('never lets two replicas lead at once, and one that can reach the Lease always ends up leading, whatever the partitions and clock offsets (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            who: fc.constantFrom('a', 'b', 'c', 'none'),
            forMs: fc.integer({ min: 0, max: 30_000 }),
          }),
          {
            minLength: 1,
            maxLength: 6,
          },
        ),
        fc.array(fc.integer({ min: -3_600_000, max: 3_600_000 }), { minLength: 3, maxLength: 3 }),
        async (partitions, offsets) => {
          const lock = new MemoryLock();
          const time = new VirtualTime();
          const replicas = ['a', 'b', 'c'].map((id, i) => replica(lock, time, id, offsets[i]));
          let overlap = 0;
          for (const p of partitions) {
            lock.failing = new Set(p.who === 'none' ? [] : [p.who]);
            for (let t = 0; t < p.forMs; t += 500) {
              await time.advance(500);
              // A replica that still believes it leads (its term not yet stopped) counts.
              if (replicas.filter((r) => r.termActive).length > 1) overlap += 1;
            }
            // Liveness: after longer than a lease duration and a retry, one replica that can reach the Lease leads.
            if (p.forMs >= 20_000) {
              const leading = replicas.filter((r) => r.termActive);
              expect(leading).toHaveLength(1);
              expect(leading[0]?.elector.leading).toBe(true);
              expect(['a', 'b', 'c'][replicas.indexOf(leading[0] as (typeof replicas)[number])]).not.toBe(
                p.who,
              );
            }
          }
          for (const r of replicas) r.stop.abort();
          lock.failing = new Set();
          await time.advance(3000);
          await Promise.all(replicas.map((r) => r.running));
          expect(overlap).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('replaces a silent holder only after a whole lease duration on its own clock, not by the holder’s renewTime', async () => {
    const lock = new MemoryLock();
    // A holder that wrote a renewTime an hour in the past (its clock is slow): still live while it renews.
    lock.exists = true;
    lock.record = {
      holder: 'ghost',
      leaseDurationSeconds: 15,
      renewTime: '2020-01-01T00:00:00.000Z',
      acquireTime: '2020-01-01T00:00:00.000Z',
      transitions: 4,
    };
    const time = new VirtualTime();
    const b = replica(lock, time, 'b');
    await time.advance(14_000);
    expect(b.elector.leading).toBe(false);
    await time.advance(4_000);
    expect(b.elector.leading).toBe(true);
    expect(lock.record?.transitions).toBe(5);
    b.stop.abort();
    await time.advance(3000);
    await b.running;
  });

  it('a leader that cannot renew steps down within the renew deadline, before anyone may take over', async () => {
    const lock = new MemoryLock();
    const time = new VirtualTime();
    const a = replica(lock, time, 'a');
    await time.advance(3000);
    expect(a.elector.leading).toBe(true);
    lock.failing = new Set(['a']);
    await time.advance(TIMING.renewDeadlineSeconds * 1000 + 2500);
    expect(a.elector.leading).toBe(false);
    expect(a.termActive).toBe(false);
    expect(a.leadingLog).toEqual([true, false]);
    a.stop.abort();
    await time.advance(3000);
    await a.running;
  });

  it('gives the Lease back when stopped, so another replica takes over at once', async () => {
    const lock = new MemoryLock();
    const time = new VirtualTime();
    const a = replica(lock, time, 'a');
    await time.advance(3000);
    const b = replica(lock, time, 'b');
    await time.advance(3000);
    expect(a.elector.leading).toBe(true);
    a.stop.abort();
    await time.advance(500);
    await a.running;
    expect(lock.record).toBeNull();
    await time.advance(3000);
    expect(b.elector.leading).toBe(true);
    b.stop.abort();
    await time.advance(3000);
    await b.running;
  });

  it('confirms leadership from the Lease itself before an action, and steps down at once when it is no longer held', async () => {
    const lock = new MemoryLock();
    const time = new VirtualTime();
    const answers: boolean[] = [];
    let term: AbortSignal | undefined;
    let confirm: (() => Promise<boolean>) | undefined;
    const stop = new AbortController();
    const elector = new LeaderElector({
      lock,
      identity: 'a',
      timing: TIMING,
      log: silent,
      clock: time.clock(),
    });
    const running = elector.run(async (signal, leadership) => {
      term = signal;
      confirm = () => leadership.confirm();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    }, stop.signal);
    await time.advance(1000);
    answers.push(await (confirm as () => Promise<boolean>)());
    // Another replica holds the Lease now (this one was paused past its lease and does not know yet).
    lock.record = { ...(lock.record as LeaderRecord), holder: 'b' };
    lock.version += 1;
    answers.push(await (confirm as () => Promise<boolean>)());
    expect(answers).toEqual([true, false]);
    expect(term?.aborted).toBe(true);
    stop.abort();
    await time.advance(3000);
    await running;
    expect(lock.record?.holder).toBe('b');
  });

  it('ends the run with the error of a term that failed, after giving the Lease back', async () => {
    const lock = new MemoryLock();
    const time = new VirtualTime();
    const elector = new LeaderElector({
      lock,
      identity: 'a',
      timing: TIMING,
      log: silent,
      clock: time.clock(),
    });
    const running = elector.run(async () => {
      throw new Error('boom');
    }, new AbortController().signal);
    const settled = running.then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    await time.advance(5000);
    expect(await settled).toBe('boom');
    expect(lock.record).toBeNull();
  });
});
