import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type KubeConfig, StorageV1Api } from '@kubernetes/client-node';
import type { CsiControllerMode } from './csi-driver/server.js';
import type { Ec2Emulator } from './ec2-emulator.js';
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
  /** `ebs` (the default) attaches in the EC2 emulator; `rbd` is ceph-csi's no-op publish. */
  readonly mode?: CsiControllerMode;
  /** Needed in `ebs` mode. */
  readonly emulator?: Ec2Emulator;
  readonly kubeConfig: KubeConfig;
}

/**
 * Registers the CSIDriver, then starts the lab's CSI controller (TypeScript; in `ebs` mode it talks to
 * the EC2 emulator) and the real external-attacher in front of it. The attacher exits when its CSI
 * socket goes away, so it is stopped first.
 */
export async function startCsi(options: StartCsiOptions): Promise<CsiComponents> {
  const logDir = join(options.runDir, 'logs');
  const pidDir = join(options.runDir, 'pids');
  const mode = options.mode ?? 'ebs';
  // The EBS driver keeps its historic names; a second driver's processes say which they are.
  const tag = mode === 'ebs' ? 'csi' : `csi-${mode}`;
  const socketDir = join(options.runDir, tag);
  mkdirSync(socketDir, { recursive: true });
  const socket = join(socketDir, 'csi.sock');
  await options.kubeConfig.makeApiClient(StorageV1Api).createCSIDriver({
    body: {
      metadata: { name: options.driverName },
      spec: { attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'] },
    },
  });
  const backend =
    mode === 'ebs'
      ? [`--ec2-endpoint=${options.emulator?.endpoint}`, `--region=${options.emulator?.region}`]
      : ['--mode=rbd'];
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
      ...backend,
    ],
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
