/**
 * The ceph-mgr `restful` module's API on node:https: `POST /request?wait=1` runs one mon command (or
 * phases of them) and answers when it is done. A serverless function cannot shell out to `ceph`, and this is the one HTTP
 * API of Pacific that can change the OSD blocklist (the dashboard API has no blocklist endpoint).
 */
import { Agent, request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { encodeMonCommand, type MonCommand } from './commands.js';
import { CephApiError } from './errors.js';
import {
  cancelled,
  commandResult,
  type MgrAnswer,
  readHttpAnswer,
  TRANSIENT_CODES,
  Transient,
} from './restful-answer.js';

/** Where the mgr is and how to trust and authenticate to it. */
export interface RestfulConnection {
  /**
   * The module's base URL on each mgr, e.g. `https://10.0.0.5:8003/` (`ceph mgr services`). Only the
   * active mgr serves it; the others refuse connections, so each is tried in turn.
   */
  readonly urls: readonly string[];
  /** The key's name (`ceph restful create-key <name>`), sent as the Basic user. */
  readonly keyName: string;
  /** The key itself (a UUID), sent as the Basic password. */
  readonly key: string;
  /** PEM of the mgr's certificate (`ceph config-key get mgr/restful/<id>/crt`) or of its CA: the only trust anchor. */
  readonly ca: string;
  /**
   * The name the certificate must carry. The module's self-signed certificate says `CN=ceph-restful` and
   * has no subjectAltName, so the name is checked against this rather than against the URL's host.
   */
  readonly serverName: string;
  /** SHA-256 fingerprint the certificate must have (`AB:CD:…` or hex), pinned on top of the CA check. */
  readonly fingerprintSha256?: string;
  /** Per attempt, connection included. */
  readonly timeoutMs: number;
  /** Attempts per command on a transient failure (network, timeout, 502/503/504). */
  readonly attempts: number;
  /** First pause between attempts; doubled each time, with jitter. */
  readonly backoffMs: number;
}

/** What a mon command printed: `outb` (the data) and `outs` (the status line). */
export interface CommandAnswer {
  readonly outb: string;
  readonly outs: string;
  /** Requests made, retries included. */
  readonly attempts: number;
}

const normaliseFingerprint = (f: string): string => f.replace(/:/g, '').toUpperCase();

/** Runs mon commands through one mgr's `restful` module. */
export class RestfulClient {
  readonly #connection: RestfulConnection;
  readonly #agent: Agent;
  readonly #bases: readonly URL[];
  /** The mgr that answered last: tried first next time. */
  #active = 0;

  constructor(connection: RestfulConnection) {
    this.#connection = connection;
    if (connection.urls.length === 0) throw new Error('RestfulClient: no mgr URL');
    this.#bases = connection.urls.map((u) => new URL(u.endsWith('/') ? u : `${u}/`));
    const { serverName, fingerprintSha256 } = connection;
    this.#agent = new Agent({
      keepAlive: true,
      maxSockets: 4,
      ca: connection.ca,
      servername: serverName,
      checkServerIdentity: (_host: string, cert: PeerCertificate) => {
        const nameError = checkServerIdentity(serverName, cert);
        if (nameError) return nameError;
        if (
          fingerprintSha256 &&
          normaliseFingerprint(cert.fingerprint256) !== normaliseFingerprint(fingerprintSha256)
        ) {
          return Object.assign(
            new Error(`certificate fingerprint ${cert.fingerprint256} is not the pinned one`),
            {
              code: 'ERR_FINGERPRINT_MISMATCH',
            },
          );
        }
        return undefined;
      },
    });
  }

  /**
   * Runs one mon command and returns what it printed. Transient failures are tried again up to
   * `attempts` times; every failure is a {@link CephApiError} with its fault code.
   */
  run(command: MonCommand, signal?: AbortSignal): Promise<CommandAnswer> {
    return this.#request(command.prefix, encodeMonCommand(command), commandResult, signal);
  }

  /**
   * Runs `commands`, then `read` once every one of them has ended, and returns what `read` printed:
   * one request per command, one after another. Never several commands in one request: the module
   * runs a request's later phases from its notify callback, and the lab's ceph-mgr 16.2.15 (Python
   * 3.11) segfaulted in `MonCommandCompletion::finish` completing such requests (six fences of two
   * entries each), while no single-command request ever did. Each change waits for its own OSD map
   * epoch (up to a second). A failed command fails the call before the read, like {@link run}.
   */
  async runThenRead(
    commands: readonly MonCommand[],
    read: MonCommand,
    signal?: AbortSignal,
  ): Promise<CommandAnswer> {
    for (const command of commands) await this.run(command, signal);
    return this.run(read, signal);
  }

  async #request(
    operation: string,
    body: string,
    interpret: (operation: string, answer: MgrAnswer) => { outb: string; outs: string },
    signal?: AbortSignal,
  ): Promise<CommandAnswer> {
    const { attempts, backoffMs } = this.#connection;
    let last: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      for (let i = 0; i < this.#bases.length; i++) {
        const index = (this.#active + i) % this.#bases.length;
        try {
          const answer = await this.#attempt(operation, body, this.#bases[index] as URL, signal);
          this.#active = index;
          return { ...interpret(operation, answer), attempts: attempt };
        } catch (error) {
          if (!(error instanceof Transient)) throw error;
          last = error;
        }
      }
      if (attempt < attempts) await this.#pause(backoffMs * 2 ** (attempt - 1), operation, signal);
    }
    const where = this.#bases.map((b) => b.origin).join(', ');
    throw new CephApiError(
      { fault: 'MgrUnreachable', operation, retryable: true, attempts },
      `no answer from the ceph-mgr restful API at ${where} after ${attempts} attempts: ${(last as Error).message}`,
      { cause: (last as Error).cause ?? last },
    );
  }

  /** Closes kept-alive connections (tests, and a CLI about to exit). */
  close(): void {
    this.#agent.destroy();
  }

  async #pause(ms: number, operation: string, signal?: AbortSignal): Promise<void> {
    try {
      await sleep(ms * (0.75 + Math.random() / 2), undefined, { signal });
    } catch {
      throw cancelled(operation);
    }
  }

  async #attempt(operation: string, body: string, base: URL, signal?: AbortSignal): Promise<MgrAnswer> {
    const { status, text } = await this.#post(operation, body, base, signal);
    const answer = readHttpAnswer(operation, status, text, this.#connection.keyName);
    await this.#forget(base, answer.id);
    return answer;
  }

  /** The module keeps every request in memory until it is deleted: delete ours (best effort). */
  async #forget(base: URL, id: string | number | undefined): Promise<void> {
    if (id === undefined) return;
    await this.#send(
      base,
      'DELETE',
      `request/${encodeURIComponent(String(id))}`,
      undefined,
      AbortSignal.timeout(2000),
    ).catch(() => undefined);
  }

  async #post(
    operation: string,
    body: string,
    base: URL,
    signal?: AbortSignal,
  ): Promise<{ status: number; text: string }> {
    const timeout = AbortSignal.timeout(this.#connection.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      return await this.#send(base, 'POST', 'request?wait=1', body, combined);
    } catch (error) {
      if (signal?.aborted) throw cancelled(operation);
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (timeout.aborted)
        throw new Transient(`no answer within ${this.#connection.timeoutMs} ms`, { cause: error });
      if (TRANSIENT_CODES.has(code))
        throw new Transient(`${code}: ${(error as Error).message}`, { cause: error });
      // TLS: the certificate is not the pinned one (or has expired). Trying again will not change it.
      throw new CephApiError(
        { fault: 'MgrUnreachable', operation, retryable: false },
        `cannot talk to the ceph-mgr restful API at ${base.origin}: ${code ? `${code}: ` : ''}${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  #send(
    base: URL,
    method: string,
    path: string,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<{ status: number; text: string }> {
    const { keyName, key } = this.#connection;
    const url = new URL(path, base);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          agent: this.#agent,
          signal,
          headers: {
            Accept: 'application/json',
            Authorization: `Basic ${Buffer.from(`${keyName}:${key}`).toString('base64')}`,
            ...(body === undefined
              ? {}
              : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}
