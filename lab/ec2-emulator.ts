/**
 * The lab's EC2: moto server (PyPI `moto[server]`, pinned) on loopback, installed once into a
 * venv in the user's cache, plus the few EC2 calls the lab, tests and demo make against it.
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
 *   each instance gets an 8 GiB root volume at `/dev/sda1`. Spot instances (InstanceMarketOptions)
 *   show `InstanceLifecycle: spot` without a SpotInstanceRequestId, and can be stopped even when
 *   one-time; throttling and UnauthorizedOperation are never produced (unit tests cover those).
 * - Unknown instance ids, even malformed ones, answer `InvalidInstanceID.NotFound`; the reservation
 *   OwnerId is always 123456789012.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type _InstanceType,
  AttachVolumeCommand,
  CreateVolumeCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DetachVolumeCommand,
  EC2Client,
  type EC2ClientConfig,
  RunInstancesCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';

/** The moto release the lab is pinned to (the fidelity patch is written against it). */
export const MOTO_VERSION = '5.2.5';
/** The account id moto reports as every reservation's OwnerId. */
export const MOTO_ACCOUNT_ID = '123456789012';
const COMPONENT = 'ec2-emulator (moto)';

/** Raised when the emulator cannot be installed or started; its message is one line a human can act on. */
export class Ec2EmulatorError extends Error {
  override readonly name = 'Ec2EmulatorError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    // One line is the whole story (the log file holds the rest): no stack trace spam in test output.
    this.stack = `${this.name}: ${message}`;
  }
}

/**
 * Where one moto version lives: `${XDG_CACHE_HOME:-~/.cache}/kube-fencer/moto-<version>`
 * (`$KUBE_FENCER_CACHE/moto-<version>` when set, like the lab's other cached tools).
 */
export const motoHome = (version: string = MOTO_VERSION): string =>
  join(
    process.env.KUBE_FENCER_CACHE ||
      join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kube-fencer'),
    `moto-${version}`,
  );

/** A usable moto install. */
export interface MotoInstallation {
  readonly version: string;
  readonly python: string;
  readonly venv: string;
}

const fail = (message: string, cause?: unknown): never => {
  const line = `${COMPONENT}: ${message}`;
  console.error(line);
  throw new Ec2EmulatorError(line, { cause });
};

const run = (command: string, args: readonly string[], logFile: string): Promise<number | null> =>
  new Promise((resolve, reject) => {
    const fd = openSync(logFile, 'a');
    writeFileSync(fd, `\n$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });

/** Waits for another process's install; a lock older than 15 minutes is a crashed installer's. */
async function takeInstallLock(lock: string, stamp: string): Promise<boolean> {
  for (;;) {
    try {
      mkdirSync(lock);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (existsSync(stamp)) return false;
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 15 * 60_000) rmSync(lock, { recursive: true, force: true });
    await sleep(1000);
  }
}

/**
 * Installs `moto[server]==<version>` into its venv once; later calls only read the stamp file.
 * Safe to call from several processes at once (a lock directory serialises installers).
 */
export async function ensureMoto(version: string = MOTO_VERSION): Promise<MotoInstallation> {
  const home = motoHome(version);
  const venv = join(home, 'venv');
  const python = join(venv, 'bin', 'python');
  const stamp = join(home, 'installed.json');
  const installation = { version, python, venv };
  if (existsSync(stamp) && existsSync(python)) return installation;

  mkdirSync(home, { recursive: true });
  const lock = join(home, 'install.lock');
  if (!(await takeInstallLock(lock, stamp))) return installation;
  const logFile = join(home, 'install.log');
  try {
    if (existsSync(stamp) && existsSync(python)) return installation;
    process.stderr.write(`${COMPONENT}: installing moto[server]==${version} into ${venv} (once)\n`);
    // A half-built venv from an interrupted install is not worth repairing.
    rmSync(venv, { recursive: true, force: true });
    const hostPython = process.env.KUBE_FENCER_PYTHON ?? 'python3';
    const steps: [string, string[]][] = [
      [hostPython, ['-m', 'venv', venv]],
      [
        python,
        ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', `moto[server]==${version}`],
      ],
      [python, ['-c', `import moto, moto.server; assert moto.__version__ == "${version}", moto.__version__`]],
    ];
    for (const [command, args] of steps) {
      const code = await run(command, args, logFile).catch((error: Error) =>
        fail(`install failed (${error.message}); log: ${logFile}`, error),
      );
      if (code !== 0) fail(`install failed (${command} exited ${code}); log: ${logFile}`);
    }
    writeFileSync(stamp, `${JSON.stringify({ version, python, installedAt: new Date().toISOString() })}\n`);
    return installation;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

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
      fail(`server exited before answering; log: ${logFile}`);
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
  if (pid === undefined) return fail(`could not spawn ${python}; log: ${logFile}`);
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
      fail(`server did not answer within ${timeoutMs} ms; log: ${logFile}`);
    }
    await sleep(200);
  }
  const reset = async (): Promise<void> => {
    const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
    if (!response.ok) fail(`reset answered HTTP ${response.status}; log: ${logFile}`);
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

const clusterTags = (cluster: string, name: string) => [
  { Key: `kubernetes.io/cluster/${cluster}`, Value: 'owned' },
  { Key: 'Name', Value: name },
];

const amiByClient = new WeakMap<EC2Client, Promise<string>>();

/** A Linux AMI from moto's built-in catalogue; the same one for every call on a client. */
const labAmi = (client: EC2Client): Promise<string> => {
  let ami = amiByClient.get(client);
  if (!ami) {
    ami = client.send(new DescribeImagesCommand({ Owners: ['amazon'] })).then(({ Images = [] }) => {
      const linux = Images.filter((image) => String(image.Platform ?? '').toLowerCase() !== 'windows');
      const ids = linux.map((image) => image.ImageId ?? '');
      const id = ids.filter(Boolean).sort()[0];
      if (!id) throw new Ec2EmulatorError(`${COMPONENT}: no Linux AMI in the emulator's catalogue`);
      return id;
    });
    amiByClient.set(client, ami);
  }
  return ami;
};

/** A worker instance as the lab created it. */
export interface ClusterInstance {
  readonly instanceId: string;
  /** LaunchTime, ISO 8601 (one-second resolution). */
  readonly launchTime: string;
  readonly zone: string;
  /** The node's `spec.providerID`: `aws:///<zone>/<instanceId>`. */
  readonly providerId: string;
}

/** Runs one instance in `zone`, tagged `kubernetes.io/cluster/<cluster>=owned` and `Name=<name>`. */
export async function createClusterInstance(
  client: EC2Client,
  input: {
    readonly cluster: string;
    readonly zone: string;
    readonly name: string;
    readonly instanceType?: _InstanceType;
  },
): Promise<ClusterInstance> {
  const { Instances = [] } = await client.send(
    new RunInstancesCommand({
      ImageId: await labAmi(client),
      InstanceType: input.instanceType ?? 't3.medium',
      MinCount: 1,
      MaxCount: 1,
      Placement: { AvailabilityZone: input.zone },
      TagSpecifications: [{ ResourceType: 'instance', Tags: clusterTags(input.cluster, input.name) }],
    }),
  );
  const instance = Instances[0];
  if (!instance?.InstanceId || !instance.LaunchTime) {
    throw new Ec2EmulatorError(`${COMPONENT}: RunInstances returned no instance`);
  }
  const { InstanceId: instanceId } = instance;
  return {
    instanceId,
    launchTime: instance.LaunchTime.toISOString(),
    zone: input.zone,
    providerId: `aws:///${input.zone}/${instanceId}`,
  };
}

/** Creates an `available` EBS volume in `zone`, tagged for the cluster; resolves to its volume id. */
export async function createVolume(
  client: EC2Client,
  input: {
    readonly zone: string;
    readonly sizeGiB: number;
    readonly cluster: string;
    readonly name?: string;
  },
): Promise<string> {
  const { VolumeId } = await client.send(
    new CreateVolumeCommand({
      AvailabilityZone: input.zone,
      Size: input.sizeGiB,
      VolumeType: 'gp3',
      TagSpecifications: [
        { ResourceType: 'volume', Tags: clusterTags(input.cluster, input.name ?? 'lab-volume') },
      ],
    }),
  );
  if (!VolumeId) throw new Ec2EmulatorError(`${COMPONENT}: CreateVolume returned no volume id`);
  return VolumeId;
}

/** Attaches a volume; fails with `VolumeInUse` while it is attached anywhere (as real EC2 does). */
export async function attachVolume(
  client: EC2Client,
  input: { readonly volumeId: string; readonly instanceId: string; readonly device: string },
): Promise<void> {
  await client.send(
    new AttachVolumeCommand({ VolumeId: input.volumeId, InstanceId: input.instanceId, Device: input.device }),
  );
}

/** Detaches a volume; moto makes it `available` at once. */
export async function detachVolume(
  client: EC2Client,
  input: { readonly volumeId: string; readonly instanceId?: string; readonly force?: boolean },
): Promise<void> {
  await client.send(
    new DetachVolumeCommand({ VolumeId: input.volumeId, InstanceId: input.instanceId, Force: input.force }),
  );
}

/** Stops an instance; in moto it reads `stopped` immediately afterwards. */
export async function stopInstance(client: EC2Client, instanceId: string): Promise<void> {
  await client.send(new StopInstancesCommand({ InstanceIds: [instanceId] }));
}

/** Starts an instance; with the fidelity patch it gets a new LaunchTime, as on real EC2. */
export async function startInstance(client: EC2Client, instanceId: string): Promise<void> {
  await client.send(new StartInstancesCommand({ InstanceIds: [instanceId] }));
}

/** Terminates an instance; its attached volumes are detached (the root volume deleted). */
export async function terminateInstance(client: EC2Client, instanceId: string): Promise<void> {
  await client.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
}

/** The instance's state name and LaunchTime as EC2 reports them now; `not-found` once EC2 forgot it. */
export async function describeInstance(
  client: EC2Client,
  instanceId: string,
): Promise<{ readonly state: string; readonly launchTime: string | undefined }> {
  try {
    const { Reservations = [] } = await client.send(
      new DescribeInstancesCommand({ InstanceIds: [instanceId] }),
    );
    const instance = Reservations[0]?.Instances?.[0];
    return { state: instance?.State?.Name ?? 'unknown', launchTime: instance?.LaunchTime?.toISOString() };
  } catch (error) {
    if ((error as Error).name === 'InvalidInstanceID.NotFound')
      return { state: 'not-found', launchTime: undefined };
    throw error;
  }
}

/** The instance's state name (`running`, `stopped`, …, or `not-found`). */
export const describeInstanceState = async (client: EC2Client, instanceId: string): Promise<string> =>
  (await describeInstance(client, instanceId)).state;
