/**
 * A node's RBD client (holder.py) run inside the node's network namespace as the node's cephx user,
 * as a lab process: its own process group and pid file, so a killed owner's clients are reaped.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../kube-wait.js';
import { REPO_ROOT } from '../paths.js';
import { type ManagedProcess, startProcess } from '../process.js';
import { SYSTEM_PYTHON } from './packages.js';

/** One line holder.py printed. `t` is its clock, in seconds since the epoch. */
export interface HolderEvent {
  readonly event:
    | 'connected'
    | 'opened'
    | 'open-failed'
    | 'locked'
    | 'lock-failed'
    | 'write'
    | 'released'
    | 'release-failed';
  readonly t: number;
  readonly n?: number;
  readonly ok?: boolean;
  /** `write`: when the write was issued (its result came at `t`). */
  readonly started?: number;
  readonly errno?: number | null;
  readonly error?: string;
  /** `connected`: the client's address, e.g. `[v2:10.77.3.2:0/2976520395,v1:…]` or `10.77.3.2:0/…`. */
  readonly addr?: string;
  readonly client?: number;
}

/** The state of a holder, from its events and its process. */
export type HolderState = 'starting' | 'locked' | 'lock-failed' | 'open-failed' | 'exited';

export interface HolderOptions {
  readonly conf: string;
  readonly netns: string;
  readonly node: string;
  readonly pool: string;
  readonly image: string;
  readonly intervalMs: number;
  readonly logDir: string;
  readonly pidDir: string;
}

/** A running (or ended) node client of one image. */
export class Holder {
  readonly node: string;
  readonly pool: string;
  readonly image: string;
  readonly #process: ManagedProcess;
  readonly #events: HolderEvent[] = [];

  constructor(o: HolderOptions) {
    this.node = o.node;
    this.pool = o.pool;
    this.image = o.image;
    this.#process = startProcess({
      name: `rbd-client-${o.node}-${o.image}`,
      command: 'ip',
      args: [
        'netns',
        'exec',
        o.netns,
        SYSTEM_PYTHON,
        join(REPO_ROOT, 'lab', 'ceph', 'holder.py'),
        o.conf,
        o.node,
        o.pool,
        o.image,
        String(o.intervalMs),
      ],
      logDir: o.logDir,
      pidDir: o.pidDir,
      pipes: true,
    });
    this.#process.stdin?.end();
    const log = this.#process.logFile;
    createInterface({ input: this.#process.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      appendFileSync(log, `${line}\n`);
      try {
        this.#events.push(JSON.parse(line) as HolderEvent);
      } catch {
        // a Python warning on stdout: kept in the log only
      }
    });
  }

  get pid(): number {
    return this.#process.pid;
  }

  get logFile(): string {
    return this.#process.logFile;
  }

  get exited(): boolean {
    return this.#process.hasExited();
  }

  events(): readonly HolderEvent[] {
    return [...this.#events];
  }

  /** Each write's result, oldest first. */
  writes(): readonly HolderEvent[] {
    return this.#events.filter((e) => e.event === 'write');
  }

  get state(): HolderState {
    const last = [...this.#events].reverse().find((e) => e.event !== 'write' && e.event !== 'released');
    if (last?.event === 'lock-failed' || last?.event === 'open-failed') return last.event;
    if (this.exited) return 'exited';
    return this.#events.some((e) => e.event === 'locked') ? 'locked' : 'starting';
  }

  /** Waits for an event that satisfies `ok` (one already seen counts). */
  waitFor(what: string, ok: (e: HolderEvent) => boolean, timeoutMs = 30_000): Promise<HolderEvent> {
    return eventually(
      `${this.node}'s client of ${this.pool}/${this.image}: ${what}`,
      async () => this.#events.find(ok),
      { timeoutMs, intervalMs: 100, lastSeen: () => JSON.stringify(this.#events.at(-1) ?? 'no event') },
    );
  }

  /** Unmaps in order (SIGTERM: the lock and watch are released); a client that hangs is killed. */
  async release(): Promise<void> {
    if (this.exited) return;
    try {
      process.kill(this.pid, 'SIGTERM');
    } catch {
      return; // exited meanwhile
    }
    const done = await Promise.race([this.#process.exited.then(() => true), sleep(5000).then(() => false)]);
    if (!done) await this.#process.kill();
  }

  /** The node crashes: the client dies without releasing anything. */
  kill(): Promise<void> {
    return this.#process.kill();
  }
}
