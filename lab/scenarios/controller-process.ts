/**
 * `fencer controller` replicas run as their own processes against the lab, as the chart runs them in a
 * cluster: the built CLI, user kube-fencer (the RBAC of deploy/rbac.yaml, every request audited), the
 * lab's cloud endpoints, a shared seal key. Used by the controller's e2e test and its benchmark.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Lab } from '../lab.js';
import { freePort } from '../net.js';
import { type FencerRun, startFencer } from './fencer-process.js';

export interface ControllerReplica {
  readonly identity: string;
  readonly port: number;
  readonly run: FencerRun;
  /** The probes server's answer to GET `path`: status and body. */
  get(path: string): Promise<{ status: number; body: string }>;
  /** The value of one Prometheus series (`name{labels}` as exposed), or 0 when it is absent. */
  sample(series: string): Promise<number>;
  /** Whether this replica holds the leader Lease, by its own metric. */
  leading(): Promise<boolean>;
}

/** Timings fast enough for a test: a dead leader is replaced within about 8 s. */
export const FAST_ELECTION = ['--lease-duration', '6s', '--renew-deadline', '4s', '--retry-period', '1s'];

/** A seal key for one lab's replicas (they must share it). */
export const labSealKey = (): string => randomBytes(32).toString('base64url');

/** Starts one replica; `args` are added to the command (thresholds, intervals, timings). */
export async function startControllerReplica(
  lab: Lab,
  options: { readonly identity: string; readonly sealKey: string; readonly args?: readonly string[] },
): Promise<ControllerReplica> {
  const port = await freePort();
  const run = startFencer(
    lab,
    [
      'controller',
      '--identity',
      options.identity,
      '--listen',
      `127.0.0.1:${port}`,
      '--sweep-interval',
      '0',
      ...(options.args ?? []),
    ],
    undefined,
    { FENCER_CONTROLLER_SEAL_KEY: options.sealKey },
  );
  const get = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: response.status, body: await response.text() };
  };
  const sample = async (series: string) => {
    const { body } = await get('/metrics');
    const line = body.split('\n').find((l) => l.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };
  return {
    identity: options.identity,
    port,
    run,
    get,
    sample,
    leading: async () => (await sample('kube_fencer_leader')) === 1,
  };
}

/** Waits until the replica answers /readyz with 200; throws with its stderr if it exits first. */
export async function waitReplicaReady(replica: ControllerReplica, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const exit: { ended?: { code: number | null; stderr: string } } = {};
  void replica.run.done.then((d) => {
    exit.ended = d;
  });
  while (Date.now() < deadline) {
    if (exit.ended) {
      const { code, stderr } = exit.ended;
      throw new Error(`controller ${replica.identity} exited (${code}): ${stderr.slice(-2000)}`);
    }
    const ready = await replica.get('/readyz').catch(() => null);
    if (ready?.status === 200) return;
    await sleep(250);
  }
  throw new Error(`controller ${replica.identity} not ready within ${timeoutMs} ms`);
}

/** The one replica that leads among `replicas`, once exactly one does. */
export async function waitForOneLeader(
  replicas: readonly ControllerReplica[],
  timeoutMs = 60_000,
): Promise<ControllerReplica> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const leading = [];
    for (const r of replicas) if (await r.leading().catch(() => false)) leading.push(r);
    if (leading.length === 1 && leading[0]) return leading[0];
    await sleep(250);
  }
  throw new Error(
    `no single leader among ${replicas.map((r) => r.identity).join(', ')} within ${timeoutMs} ms`,
  );
}
