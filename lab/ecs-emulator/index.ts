/**
 * The lab's ECS: an emulator of Alibaba Cloud's ECS API written from its documented behaviour (no public
 * one exists), run as its own process like moto is for EC2, or in-process for fast integration tests.
 *
 * What it does (each point is Alibaba's documented behaviour; tests drive it with the real SDK):
 * - RPC-style API over HTTP, every request's ACS3-HMAC-SHA256 (or legacy HMAC-SHA1) signature verified
 *   against known AccessKeys: a wrong secret or a tampered query is `SignatureDoesNotMatch` (400), an
 *   unknown key `InvalidAccessKeyId.NotFound` (404), a reused nonce `SignatureNonceUsed`, a stale date
 *   `InvalidTimeStamp.Expired`, an STS key without its token `MissingSecurityToken`;
 * - instances Running → Stopping → Stopped and Stopped → Starting → Running (a new StartTime, reported
 *   with minute precision as ECS does), each after a configurable delay; StopInstance(s) of an instance
 *   that is not Running is `IncorrectInstanceStatus`; a security lock refuses stops; StopInstances with
 *   `AllTogether` fails whole, with `SuccessFirst` answers per instance (Code `200` on success); DryRun
 *   answers `DryRunOperation` / `DRYRUN.SUCCESS` and changes nothing;
 * - DescribeInstances leaves unknown ids out (no error); DescribeInstanceAttribute answers
 *   `InvalidInstanceId.NotFound`; MaxResults/NextToken and PageNumber/PageSize paging;
 * - disks Available → Attaching → In_use → Detaching, `IncorrectDiskStatus` for an attach of a disk in
 *   use elsewhere (multi-attach disks excepted: their instances are listed in `Attachments`);
 * - faults injected through the admin API, optionally for one AccessKey only: any error code and status
 *   (`Throttling.User` with `x-acs-retry-after`), latency, a stop stuck in Stopping, operation locks.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths.js';
import { type ManagedProcess, startProcess, waitUntil } from '../process.js';
import { EcsEmulatorAdmin } from './admin-client.js';
import type { Delays } from './model.js';
import { createEcsEmulatorServer, type EcsEmulatorState } from './server.js';
import type { Principal } from './signature.js';

export { EcsEmulatorAdmin } from './admin-client.js';
export type { Delays, Fault, Lock } from './model.js';
export type { Principal } from './signature.js';

/** A running ECS emulator. */
export interface EcsEmulator {
  /** `http://127.0.0.1:<port>`, for the fencer's endpoint override. */
  readonly endpoint: string;
  readonly region: string;
  /** The lab's own key: fixtures and the CSI driver. */
  readonly labKey: Principal;
  /** The fencer's key (a RAM user of its own), so faults can hit the fencer's calls only. */
  readonly fencerKey: Principal;
  readonly admin: EcsEmulatorAdmin;
  readonly logFile?: string;
  readonly pid?: number;
  stop(): Promise<void>;
}

export const LAB_KEY: Principal = {
  accessKeyId: 'LTAI5tLabLabLabLabLab01',
  accessKeySecret: 'lab-secret-do-not-use-anywhere',
};
export const FENCER_KEY: Principal = {
  accessKeyId: 'LTAI5tFencerFencerFen02',
  accessKeySecret: 'fencer-secret-do-not-use-anywhere',
};

/** Starts the emulator inside this process (integration tests). */
export async function startEcsEmulatorInProcess(options: {
  readonly region: string;
  readonly delays?: Partial<Delays>;
  readonly principals?: readonly Principal[];
}): Promise<EcsEmulator & { readonly state: EcsEmulatorState }> {
  const { server, state } = createEcsEmulatorServer({
    region: options.region,
    principals: options.principals ?? [LAB_KEY, FENCER_KEY],
    delays: options.delays,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    region: options.region,
    labKey: LAB_KEY,
    fencerKey: FENCER_KEY,
    admin: new EcsEmulatorAdmin(endpoint),
    state,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts the emulator as its own process group (the lab), logging to `<runDir>/logs/ecs-emulator.log`. */
export async function startEcsEmulator(options: {
  readonly runDir: string;
  readonly region: string;
}): Promise<EcsEmulator> {
  const dir = join(options.runDir, 'ecs-emulator');
  mkdirSync(dir, { recursive: true });
  const principalsFile = join(dir, 'principals.json');
  const portFile = join(dir, 'port');
  rmSync(portFile, { force: true });
  writeFileSync(principalsFile, JSON.stringify([LAB_KEY, FENCER_KEY]));
  const proc: ManagedProcess = startProcess({
    name: 'ecs-emulator',
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      join(REPO_ROOT, 'lab', 'ecs-emulator', 'main.ts'),
      `--region=${options.region}`,
      `--principals=${principalsFile}`,
      `--port-file=${portFile}`,
    ],
    cwd: REPO_ROOT,
    logDir: join(options.runDir, 'logs'),
    pidDir: join(options.runDir, 'pids'),
  });
  let endpoint = '';
  try {
    await waitUntil(
      { name: 'ecs-emulator', logFile: proc.logFile, proc },
      async () => {
        const port = readFileSync(portFile, 'utf8').trim();
        endpoint = `http://127.0.0.1:${port}`;
        return (await new EcsEmulatorAdmin(endpoint).health()).ok;
      },
      60_000,
    );
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return {
    endpoint,
    region: options.region,
    labKey: LAB_KEY,
    fencerKey: FENCER_KEY,
    admin: new EcsEmulatorAdmin(endpoint),
    logFile: proc.logFile,
    pid: proc.pid,
    stop: () => proc.stop(),
  };
}
