/**
 * THE EC2 FAULT INJECTOR IS A MOCK, for what moto cannot reproduce: throttling (moto never throttles),
 * a slow provider, an instance that stays `stopping` (moto stops at once), and a terminated instance
 * EC2 has forgotten (moto keeps showing it `terminated`). Everything else is moto's
 * own answer, passed through unchanged. It is an HTTP proxy on 127.0.0.1 in front of the emulator that
 * only the fencer talks to (`lab.fencerEnv.AWS_ENDPOINT_URL_EC2`); the lab's own setup and checks go to
 * moto directly, so they always see the truth. It also keeps a log of every call the fencer made
 * (action, ids, DryRun, which fault applied, what moto answered), for tests that assert what the
 * fencer did and did not ask EC2 to do.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeFault, type Ec2Fault, FaultTable, type InjectedFault, type LatencyFault } from './faults.js';
import { forward, readBody, send } from './http.js';
import {
  type Ec2Answer,
  type Ec2Call,
  errorCodeOf,
  heldStopAnswer,
  instanceNotFoundAnswer,
  namedInstanceIds,
  parseEc2Call,
  previousStatesOf,
  reportStopping,
  throttlingAnswer,
} from './query-protocol.js';

/** One call the fencer made, as the injector saw and answered it. */
export interface Ec2RequestRecord extends Ec2Call {
  /** Order of arrival, from 1. */
  readonly seq: number;
  /** When the call arrived, ISO 8601. */
  readonly at: string;
  /** The faults applied to it (empty: moto answered it untouched). */
  readonly faults: readonly string[];
  /** HTTP status of the answer; `null` while it has not been answered (or the caller went away). */
  readonly status: number | null;
  /** EC2's error code when the answer was an error, e.g. `RequestLimitExceeded`, `DryRunOperation`. */
  readonly errorCode?: string;
  /** For Start/Stop/TerminateInstances answered 200: each instance's state before the call. */
  readonly previousStates?: Readonly<Record<string, string>>;
}

/** Control of the injector, as tests see it through `lab.ec2Faults`. */
export interface Ec2Faults {
  /** `http://127.0.0.1:<port>`: give it to the code under test as its EC2 endpoint. */
  readonly endpoint: string;
  inject(fault: Ec2Fault): InjectedFault;
  /** Removes every fault; the log stays. */
  clear(): void;
  /** Every call since the start (or the last `resetRequests()`), oldest first. */
  requests(): readonly Ec2RequestRecord[];
  resetRequests(): void;
  /** Resolves with the first logged call (already logged or still to come) that matches. */
  waitForRequest(match: (r: Ec2RequestRecord) => boolean, timeoutMs?: number): Promise<Ec2RequestRecord>;
}

export interface Ec2FaultInjector extends Ec2Faults {
  stop(): Promise<void>;
}

const POWER_ACTIONS: ReadonlySet<string> = new Set(['StartInstances', 'StopInstances', 'TerminateInstances']);
const STATE_READS: ReadonlySet<string> = new Set(['DescribeInstances', 'DescribeInstanceStatus']);

type MutableRecord = { -readonly [K in keyof Ec2RequestRecord]: Ec2RequestRecord[K] } & { faults: string[] };

/** Control and log of the proxy; the HTTP plumbing is in {@link startEc2Faults}. */
class Injector {
  readonly table = new FaultTable();
  readonly stopping = new AbortController();
  log: MutableRecord[] = [];
  readonly #waiters = new Set<(r: MutableRecord) => void>();
  #seq = 0;

  constructor(
    private readonly target: URL,
    private readonly logFile: string | undefined,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const call = parseEc2Call(body.toString('utf8'), new URL(req.url ?? '/', this.target).search);
    if (!call) {
      const upstream = await forward(this.target, req, body);
      send(res, upstream);
      return;
    }
    const record: MutableRecord = {
      ...call,
      seq: ++this.#seq,
      at: new Date().toISOString(),
      faults: [],
      status: null,
    };
    this.log.push(record);
    for (const w of this.#waiters) w(record);
    const taken = this.table.take(call);
    const latency = (when: 'before' | 'after') =>
      taken.filter((f): f is LatencyFault => f.kind === 'latency' && (f.when ?? 'before') === when);
    await this.#delay(record, latency('before'));
    const result = await this.#answer(call, record, taken, req, body);
    await this.#delay(record, latency('after'));
    record.status = result.status;
    if (result.status >= 400) record.errorCode = errorCodeOf(result.body);
    if (this.logFile) appendFileSync(this.logFile, `${JSON.stringify(record)}\n`);
    send(res, result);
  }

  waitFor(match: (r: Ec2RequestRecord) => boolean, timeoutMs: number): Promise<Ec2RequestRecord> {
    const found = this.log.find((r) => match(snapshot(r)));
    if (found) return Promise.resolve(snapshot(found));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`ec2-faults: no matching EC2 call within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (r: MutableRecord): void => {
        if (!match(snapshot(r))) return;
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        resolve(snapshot(r));
      };
      this.#waiters.add(waiter);
    });
  }

  async #delay(record: MutableRecord, faults: readonly LatencyFault[]): Promise<void> {
    for (const f of faults) {
      record.faults.push(describeFault(f));
      await sleep(f.delayMs, undefined, { signal: this.stopping.signal });
    }
  }

  /** The answer: throttled, a held stop, or moto's (with held instances reported `stopping`). */
  async #answer(
    call: Ec2Call,
    record: MutableRecord,
    taken: readonly Ec2Fault[],
    req: IncomingMessage,
    body: Buffer,
  ): Promise<Ec2Answer> {
    const throttle = taken.find((f) => f.kind === 'throttle');
    if (throttle) {
      record.faults.push(describeFault(throttle));
      return throttlingAnswer();
    }
    const named = namedInstanceIds(body.toString('utf8'), new URL(req.url ?? '/', this.target).search);
    const forgotten = this.table.forgotten().filter((f) => named.includes(f.instanceId));
    if (forgotten.length > 0) {
      record.faults.push(...forgotten.map(describeFault));
      return instanceNotFoundAnswer(forgotten.map((f) => f.instanceId));
    }
    const held = this.table.stopping().filter((f) => f.stopInstances === 'hold');
    const holds = (id: string) => held.some((f) => f.instanceId === id);
    if (
      call.action === 'StopInstances' &&
      !call.dryRun &&
      call.instanceIds.length > 0 &&
      call.instanceIds.every(holds)
    ) {
      record.faults.push(...held.filter((f) => call.instanceIds.includes(f.instanceId)).map(describeFault));
      return heldStopAnswer(call.instanceIds);
    }
    const upstream = await forward(this.target, req, body);
    let text = upstream.body;
    if (STATE_READS.has(call.action) && upstream.status === 200) {
      for (const f of this.table.stopping()) {
        const rewritten = reportStopping(text, f.instanceId);
        if (rewritten !== text) record.faults.push(describeFault(f));
        text = rewritten;
      }
    }
    if (POWER_ACTIONS.has(call.action) && upstream.status === 200) {
      record.previousStates = previousStatesOf(text, call.instanceIds);
    }
    return { status: upstream.status, body: text, headers: upstream.headers };
  }
}

const snapshot = (r: MutableRecord): Ec2RequestRecord => structuredClone(r);

/** Starts the injector in front of the EC2 endpoint `target`; `logFile` gets one JSON line per call. */
export async function startEc2Faults(options: {
  readonly target: string;
  readonly logFile?: string;
}): Promise<Ec2FaultInjector> {
  const injector = new Injector(new URL(options.target), options.logFile);
  const server = createServer((req, res) => {
    injector.handle(req, res).catch((error: Error) => {
      if (injector.stopping.signal.aborted) return res.destroy();
      send(res, { status: 502, body: `ec2-faults: ${error.message}` });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    inject: (fault) => injector.table.inject(fault),
    clear: () => injector.table.clear(),
    requests: () => injector.log.map(snapshot),
    resetRequests: () => {
      injector.log = [];
    },
    waitForRequest: (match, timeoutMs = 60_000) => injector.waitFor(match, timeoutMs),
    async stop() {
      injector.stopping.abort();
      injector.table.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
