/**
 * The TypeScript side of `admin.py`: mon and mgr commands, and a few librbd reads, over one long-lived
 * client.admin connection. What the lab and the tests use to set up and look at the cluster (the
 * fencer itself only ever talks to the mgr's REST API).
 */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LabStartError } from '../build/errors.js';
import { REPO_ROOT } from '../paths.js';
import { type ManagedProcess, startProcess } from '../process.js';
import { SYSTEM_PYTHON } from './packages.js';

/** A request admin.py failed: the errno and Ceph's words. */
export class CephAdminError extends Error {
  override readonly name = 'CephAdminError';
  readonly errno: number | null;

  constructor(what: string, errno: number | null, detail: string) {
    super(`ceph admin ${what}: ${detail}${errno === null ? '' : ` (errno ${errno})`}`);
    this.errno = errno;
  }
}

/** One watcher of an image header, as librbd lists it. */
export interface Watcher {
  /** `10.77.3.2:0/2976520395`: the client's address and nonce. */
  readonly addr: string;
  readonly id: number;
  readonly cookie: number;
}

/** A holder of an image lock, as `rbd lock ls` lists it. */
export interface Locker {
  /** `client.4156` */
  readonly client: string;
  /** `auto 139912317768896` for the exclusive lock */
  readonly cookie: string;
  /** `10.77.3.2:0/2976520395` */
  readonly addr: string;
}

type Answer = { ok: true; [key: string]: unknown } | { ok: false; errno: number | null; error: string };

/** A mon or mgr command's output. */
export interface CommandOutput {
  readonly outb: string;
  readonly outs: string;
}

/** The lab's admin connection to its Ceph cluster. */
export class CephAdmin {
  readonly #process: ManagedProcess;
  readonly #pending = new Map<number, (answer: Answer) => void>();
  readonly #connected: Promise<void>;
  #next = 1;

  private constructor(process: ManagedProcess) {
    this.#process = process;
    let ready: () => void = () => {};
    let failed: (error: Error) => void = () => {};
    this.#connected = new Promise((resolve, reject) => {
      ready = resolve;
      failed = reject;
    });
    const lines = createInterface({ input: process.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      const answer = JSON.parse(line) as Answer & { id: number };
      if (answer.id === 0) ready();
      this.#pending.get(answer.id)?.(answer);
      this.#pending.delete(answer.id);
    });
    void process.exited.then((code) => {
      const error = new LabStartError(`lab ceph: the admin client exited (${code}); see ${process.logFile}`);
      failed(error);
      for (const settle of this.#pending.values()) settle({ ok: false, errno: null, error: error.message });
      this.#pending.clear();
    });
  }

  /** Starts admin.py; resolves once it is connected (the mon is in quorum and knows client.admin). */
  static async start(options: {
    readonly conf: string;
    readonly logDir: string;
    readonly pidDir: string;
    readonly timeoutSeconds: number;
  }): Promise<CephAdmin> {
    const process = startProcess({
      name: 'ceph-admin',
      command: SYSTEM_PYTHON,
      args: [join(REPO_ROOT, 'lab', 'ceph', 'admin.py'), options.conf, String(options.timeoutSeconds)],
      logDir: options.logDir,
      pidDir: options.pidDir,
      pipes: true,
    });
    const admin = new CephAdmin(process);
    await admin.#connected;
    return admin;
  }

  get pid(): number {
    return this.#process.pid;
  }

  async #request(what: string, request: Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.#connected;
    const id = this.#next++;
    const answer = await new Promise<Answer>((resolve) => {
      this.#pending.set(id, resolve);
      this.#process.stdin?.write(`${JSON.stringify({ id, ...request })}\n`);
    });
    if (!answer.ok) throw new CephAdminError(what, answer.errno, answer.error);
    return answer;
  }

  async #command(
    op: 'mon' | 'mgr',
    cmd: Record<string, unknown>,
    inbuf?: string,
    floats?: Record<string, number>,
  ): Promise<CommandOutput> {
    const what = String(cmd.prefix);
    const answer = await this.#request(what, {
      op,
      cmd,
      ...(inbuf === undefined ? {} : { inbuf }),
      ...(floats === undefined ? {} : { floats }),
    });
    if (answer.ret !== 0) throw new CephAdminError(what, -Number(answer.ret), String(answer.outs));
    return { outb: String(answer.outb), outs: String(answer.outs) };
  }

  /**
   * A mon command (`{"prefix": "osd stat", "format": "json"}`); fails on a non-zero return. `floats`
   * are CephFloat arguments, sent as reals (the mon refuses `expire: 3600`; it wants `3600.0`).
   */
  mon(cmd: Record<string, unknown>, inbuf?: string, floats?: Record<string, number>): Promise<CommandOutput> {
    return this.#command('mon', cmd, inbuf, floats);
  }

  /** A mgr command (e.g. `restful create-key`); waits for an active mgr. */
  mgr(cmd: Record<string, unknown>, inbuf?: string): Promise<CommandOutput> {
    return this.#command('mgr', cmd, inbuf);
  }

  /** A mon command with JSON output, parsed. */
  async monJson<T>(cmd: Record<string, unknown>): Promise<T> {
    return JSON.parse((await this.mon({ ...cmd, format: 'json' })).outb) as T;
  }

  async poolInit(pool: string): Promise<void> {
    await this.#request(`pool init ${pool}`, { op: 'pool_init', pool });
  }

  /** Creates an image with the default features (layering, exclusive-lock, object-map, …). */
  async createImage(pool: string, image: string, sizeBytes: number): Promise<void> {
    await this.#request(`create ${pool}/${image}`, { op: 'create_image', pool, image, size: sizeBytes });
  }

  /** The image header's watchers (what `rbd status` prints). */
  async watchers(pool: string, image: string): Promise<Watcher[]> {
    return (await this.#request(`watchers ${pool}/${image}`, { op: 'watchers', pool, image }))
      .watchers as Watcher[];
  }

  /** The image's lockers (`rbd lock ls`): the exclusive lock's holder, `client.<id>` at an address. */
  async lockers(pool: string, image: string): Promise<Locker[]> {
    return (await this.#request(`lockers ${pool}/${image}`, { op: 'lockers', pool, image }))
      .lockers as Locker[];
  }

  /** Reads bytes of an image (the holders write a JSON record at offset 0). */
  async read(pool: string, image: string, length: number, offset = 0): Promise<string> {
    return String(
      (await this.#request(`read ${pool}/${image}`, { op: 'read', pool, image, length, offset })).data,
    );
  }

  stop(): Promise<void> {
    return this.#process.kill();
  }
}
