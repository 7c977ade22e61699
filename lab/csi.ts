import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type KubeConfig, StorageV1Api } from '@kubernetes/client-node';
import type { CsiControllerMode } from './csi-driver/server.js';
import type { Ec2Emulator } from './ec2-emulator.js';
import type { Principal } from './ecs-emulator/index.js';
import { REPO_ROOT } from './paths.js';
import { type ManagedProcess, startProcess, waitUntil } from './process.js';

export interface CsiComponents {
  readonly processes: readonly ManagedProcess[];
  stop(): Promise<void>;
}

interface StartCsiOptions {
  readonly binDir: string;
  readonly runDir: string;
  readonly kubeconfigPath: string;
  readonly driverName: string;
  /** `cloud` (the default) attaches in the EC2 or ECS emulator; `rbd` is ceph-csi's no-op publish. */
  readonly mode?: CsiControllerMode;
  /** The EC2 emulator the controller attaches EBS volumes in (the AWS-flavoured lab). */
  readonly emulator?: Pick<Ec2Emulator, 'endpoint' | 'region'>;
  /** The ECS emulator and the lab's key, for the Alibaba disk driver (the Alibaba-flavoured lab). */
  readonly ecs?: { readonly endpoint: string; readonly region: string; readonly key: Principal };
  readonly kubeConfig: KubeConfig;
}

/** The controller's arguments and environment for the cloud it attaches volumes in. */
function cloudOf(options: StartCsiOptions): { args: string[]; env: NodeJS.ProcessEnv } {
  if (options.mode === 'rbd') return { args: ['--mode=rbd'], env: process.env };
  if (options.ecs) {
    const { endpoint, region, key } = options.ecs;
    return {
      args: [`--ecs-endpoint=${endpoint}`, `--region=${region}`],
      env: {
        ...process.env,
        ALIBABA_CLOUD_ACCESS_KEY_ID: key.accessKeyId,
        ALIBABA_CLOUD_ACCESS_KEY_SECRET: key.accessKeySecret,
      },
    };
  }
  if (!options.emulator) throw new Error('lab: the CSI controller needs the EC2 or the ECS emulator');
  return {
    args: [`--ec2-endpoint=${options.emulator.endpoint}`, `--region=${options.emulator.region}`],
    env: process.env,
  };
}

/**
 * Registers the CSIDriver, then starts the lab's CSI controller (TypeScript; it talks to the EC2 or the
 * ECS emulator, or, for RBD, to nothing) and the real external-attacher in front of it. The attacher
 * exits when its CSI socket goes away, so it is stopped first.
 */
export async function startCsi(options: StartCsiOptions): Promise<CsiComponents> {
  const logDir = join(options.runDir, 'logs');
  const pidDir = join(options.runDir, 'pids');
  const mode = options.mode ?? 'cloud';
  // The cloud's driver keeps its historic names; a second driver's processes say which they are.
  const tag = mode === 'cloud' ? 'csi' : `csi-${mode}`;
  const socketDir = join(options.runDir, tag);
  mkdirSync(socketDir, { recursive: true });
  const socket = join(socketDir, 'csi.sock');
  const cloud = cloudOf(options);
  await options.kubeConfig.makeApiClient(StorageV1Api).createCSIDriver({
    body: {
      metadata: { name: options.driverName },
      spec: { attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'] },
    },
  });
  const controller = startProcess({
    name: `${tag}-controller`,
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      join(REPO_ROOT, 'lab', 'csi-driver', 'main.ts'),
      `--socket=${socket}`,
      `--proto=${join(options.binDir, 'csi.proto')}`,
      `--driver=${options.driverName}`,
      ...cloud.args,
    ],
    env: cloud.env,
    cwd: REPO_ROOT,
    logDir,
    pidDir,
  });
  const processes: ManagedProcess[] = [controller];
  const stop = async (): Promise<void> => {
    for (const p of [...processes].reverse()) await p.stop();
  };
  try {
    await waitUntil(controller, async () => existsSync(socket), 60_000);
    const attacher = startProcess({
      name: `${tag}-attacher`,
      command: join(options.binDir, 'csi-attacher'),
      args: [
        `--kubeconfig=${options.kubeconfigPath}`,
        `--csi-address=${socket}`,
        '--timeout=15s',
        '--retry-interval-start=500ms',
        '--retry-interval-max=5s',
        '--worker-threads=8',
        '--leader-election=false',
        '--v=4',
      ],
      logDir,
      pidDir,
    });
    processes.push(attacher);
    // The attacher logs its driver name once it has probed the plugin.
    const { readFileSync } = await import('node:fs');
    await waitUntil(
      attacher,
      async () => /CSI driver name|driver name/i.test(readFileSync(attacher.logFile, 'utf8')),
      60_000,
    );
    return { processes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
