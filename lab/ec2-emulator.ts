/**
 * The lab's EC2: moto server (PyPI `moto[server]`, pinned) on loopback, installed once into a
 * venv in the user's cache (lab/moto-install.ts), plus the EC2 calls the lab, tests and demo make
 * against it (lab/ec2-fixtures.ts, re-exported here).
 *
 * What moto 5.2.5 does, verified against the server (the lab relies on these):
 * - StopInstances answers `CurrentState: stopping`, but the instance is already `stopped` (code 80)
 *   in the next DescribeInstances: there is no observable `stopping` phase. StateReason is
 *   `Client.UserInitiatedShutdown`, StateTransitionReason `User initiated (<time>)`. Stopping an
 *   already stopped instance succeeds (no IncorrectInstanceState). `Force`, `SkipOsShutdown` and
 *   `DryRun` are accepted; DryRun answers `DryRunOperation` (HTTP 412) and changes nothing.
 * - Stopping keeps EBS attachments (`in-use`/`attached`), as real EC2 does; terminating detaches them.
 * - Unpatched moto keeps LaunchTime on StartInstances and lets AttachVolume silently move an
 *   `in-use` volume to a second instance. Real EC2 sets a new LaunchTime on every start and
 *   answers `VolumeInUse`; the fencer's power-cycle proof and the lab's Multi-Attach story depend
 *   on both, so {@link MOTO_FIDELITY_PATCH} restores them. LaunchTime has one-second resolution.
 * - RunInstances accepts any AMI id and any zone of the region (others: InvalidParameterValue);
 *   each instance gets an 8 GiB root volume at `/dev/sda1` whatever the AMI's RootDeviceName says
 *   (so the lab picks an AMI whose root device is `/dev/sda1`). Spot instances (InstanceMarketOptions)
 *   show `InstanceLifecycle: spot` without a SpotInstanceRequestId, and can be stopped even when
 *   one-time; throttling and UnauthorizedOperation are never produced (unit tests cover those).
 * - Unknown instance ids, even malformed ones, answer `InvalidInstanceID.NotFound`; the reservation
 *   OwnerId is always 123456789012.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EC2Client, type EC2ClientConfig } from '@aws-sdk/client-ec2';
import { ensureMoto, failEmulator, MOTO_VERSION } from './moto-install.js';

export * from './ec2-fixtures.js';
export {
  Ec2EmulatorError,
  ensureMoto,
  MOTO_VERSION,
  type MotoInstallation,
  motoHome,
} from './moto-install.js';

/** The account id moto reports as every reservation's OwnerId. */
export const MOTO_ACCOUNT_ID = '123456789012';

/**
 * Python run in place of `moto_server`: restores two real-EC2 behaviours moto lacks (see the file
 * header). It asserts what it patches, so a moto upgrade that moves these internals fails loudly.
 */
export const MOTO_FIDELITY_PATCH = `
import sys
from moto.core.utils import utcnow
from moto.ec2.exceptions import VolumeInUseError
from moto.ec2.models.elastic_block_store import EBSBackend
from moto.ec2.models.instances import Instance
assert callable(Instance.start) and callable(EBSBackend.attach_volume)

_start = Instance.start
def start(self):
    was_running = self._state.name == "running"
    previous = _start(self)
    if not was_running:
        self.launch_time = utcnow()
    return previous
Instance.start = start

_attach = EBSBackend.attach_volume
def attach_volume(self, volume_id, instance_id, device_path, delete_on_termination=False):
    volume = self.get_volume(volume_id)
    if volume.attachment is not None:
        raise VolumeInUseError(volume_id, volume.attachment.instance.id)
    return _attach(self, volume_id, instance_id, device_path, delete_on_termination)
EBSBackend.attach_volume = attach_volume

from moto.server import main
main(sys.argv[1:])
`;

/** A running EC2 emulator. */
export interface Ec2Emulator {
  /** `http://127.0.0.1:<port>`, for the SDK's `endpoint`. */
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly logFile: string;
  readonly pid: number;
  /** Kills the server's whole process group and resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
  /** Forgets every instance, volume and tag (moto's `/moto-api/reset`). */
  reset(): Promise<void>;
}

/** Options for {@link startEc2Emulator}. */
export interface StartEc2EmulatorOptions {
  /** The lab run's directory; the log goes to `<runDir>/logs/ec2-emulator.log`. */
  readonly runDir: string;
  /** @default 'us-east-1' */
  readonly region?: string;
  /**
   * Folder for `ec2-emulator.pid` ("<server pid> <owner pid>"), so a later lab can reap a server
   * whose owner was killed. @default no pid file
   */
  readonly pidDir?: string;
  /** How long the server may take to answer. @default 60_000 */
  readonly startTimeoutMs?: number;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

const answers = async (endpoint: string): Promise<boolean> => {
  try {
    return (await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
};

/** Starts moto on a free loopback port and resolves once it answers HTTP. */
export async function startEc2Emulator(options: StartEc2EmulatorOptions): Promise<Ec2Emulator> {
  const { python } = await ensureMoto();
  const region = options.region ?? 'us-east-1';
  const logDir = join(options.runDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, 'ec2-emulator.log');
  // The port is free when probed but could be taken before moto binds it: try a few.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const emulator = await launch(python, port, { ...options, region, logFile });
    if (emulator) return emulator;
    const log = readFileSync(logFile, 'utf8');
    if (attempt >= 3 || !/address already in use/i.test(log.slice(-2000))) {
      failEmulator(`server exited before answering; log: ${logFile}`);
    }
  }
}

type LaunchOptions = StartEc2EmulatorOptions & { readonly region: string; readonly logFile: string };

async function launch(
  python: string,
  port: number,
  options: LaunchOptions,
): Promise<Ec2Emulator | undefined> {
  const { region, logFile, startTimeoutMs: timeoutMs = 60_000 } = options;
  const fd = openSync(logFile, 'a');
  writeFileSync(fd, `\n--- ${new Date().toISOString()} moto ${MOTO_VERSION} on 127.0.0.1:${port}\n`);
  // detached: its own process group, so stop() can kill moto and anything it forks in one signal.
  const child = spawn(python, ['-c', MOTO_FIDELITY_PATCH, '-H', '127.0.0.1', '-p', String(port)], {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  closeSync(fd);
  const pid = child.pid;
  if (pid === undefined) return failEmulator(`could not spawn ${python}; log: ${logFile}`);
  const pidFile = options.pidDir ? join(options.pidDir, 'ec2-emulator.pid') : undefined;
  if (pidFile && options.pidDir) {
    mkdirSync(options.pidDir, { recursive: true });
    writeFileSync(pidFile, `${pid} ${process.pid}\n`);
  }
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      if (pidFile) rmSync(pidFile, { force: true });
      resolve();
    }),
  );
  let alive = true;
  void exited.then(() => {
    alive = false;
  });
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  // Last resort if the host exits without stop(): leave no server behind.
  const onExit = (): void => killGroup('SIGKILL');
  process.once('exit', onExit);
  const stop = async (): Promise<void> => {
    process.off('exit', onExit);
    killGroup('SIGTERM');
    const timedOut = await Promise.race([exited.then(() => false), sleep(5000).then(() => true)]);
    if (timedOut) killGroup('SIGKILL');
    await exited;
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (!(await answers(endpoint))) {
    if (!alive) {
      process.off('exit', onExit);
      return undefined;
    }
    if (Date.now() > deadline) {
      await stop();
      failEmulator(`server did not answer within ${timeoutMs} ms; log: ${logFile}`);
    }
    await sleep(200);
  }
  const reset = async (): Promise<void> => {
    const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
    if (!response.ok) failEmulator(`reset answered HTTP ${response.status}; log: ${logFile}`);
  };
  return {
    endpoint,
    region,
    accessKeyId: 'testing',
    secretAccessKey: 'testing',
    logFile,
    pid,
    stop,
    reset,
  };
}

/** An EC2 client pointed at the emulator (endpoint, region, its static credentials). */
export const ec2ClientFor = (
  emulator: Pick<Ec2Emulator, 'endpoint' | 'region' | 'accessKeyId' | 'secretAccessKey'>,
  overrides: Partial<EC2ClientConfig> = {},
): EC2Client =>
  new EC2Client({
    endpoint: emulator.endpoint,
    region: emulator.region,
    credentials: { accessKeyId: emulator.accessKeyId, secretAccessKey: emulator.secretAccessKey },
    ...overrides,
  });
