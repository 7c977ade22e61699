import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigEndpoint } from '../lib/adapters/kubernetes/access/kubeconfig.js';
import type { ApiEndpoint } from '../lib/adapters/kubernetes/api/endpoint.js';
import { ensureLabBinaries } from './build/go-binaries.js';
import { type ControlPlaneTimings, DEFAULT_TIMINGS, startControlPlane } from './control-plane.js';
import { startCsi } from './csi.js';
import {
  createClusterInstance,
  type Ec2Emulator,
  ec2ClientFor,
  startEc2Emulator,
  startInstance,
  stopInstance,
} from './ec2-emulator.js';
import { type Ec2Faults, startEc2Faults } from './ec2-faults/index.js';
import { KubeletFleet, type SimulatedNode } from './kubelets.js';
import { applyManifest } from './manifests.js';
import { cacheRoot, REPO_ROOT } from './paths.js';
import { type LabIdentity, makePki } from './pki.js';

export type { LabIdentity } from './pki.js';

import { type ManagedProcess, reapOrphans, runInUse } from './process.js';
import { waitForNodesReady } from './readiness.js';

/** The CSI driver name the lab's controller registers: it stands in for the EBS CSI driver. */
export const LAB_CSI_DRIVER = 'ebs.csi.aws.com';

export interface LabOptions {
  /** How many worker nodes (node-a, node-b, ...). At least 2, so that a pod has somewhere to go. */
  readonly nodes?: number;
  /** Availability zone of each node, round-robin. Default: all in one zone, so volumes can move. */
  readonly zones?: readonly string[];
  /** The cluster name in the instances' ownership tag `kubernetes.io/cluster/<name>`. */
  readonly cluster?: string;
  readonly region?: string;
  readonly timings?: Partial<ControlPlaneTimings>;
  /** Extra users of the API server, each in its groups, each with a kubeconfig and audited. @default none */
  readonly identities?: readonly LabIdentity[];
  /** Progress lines while the lab starts (default: none). */
  readonly onStep?: (message: string) => void;
}

/**
 * A lab worker: its Node name, its instance (id, zone, providerID) and the instance's private IP and
 * DNS name as the EC2 emulator assigned them, which its kubelet posts as `status.addresses`.
 */
export interface LabNode extends SimulatedNode {}

/** The fields of a kube-apiserver audit event that tests look at. */
export interface AuditEvent {
  readonly verb: string;
  readonly user: { readonly username: string };
  readonly objectRef?: {
    readonly resource?: string;
    readonly namespace?: string;
    readonly name?: string;
    readonly subresource?: string;
  };
  readonly responseStatus?: { readonly code?: number };
  readonly requestReceivedTimestamp: string;
}

/** A running lab: a real control plane, a CSI attacher, an EC2 emulator and simulated kubelets. */
export interface Lab {
  readonly cluster: string;
  readonly region: string;
  readonly runDir: string;
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  /** The admin kubeconfig as an endpoint for the fencer's Kubernetes adapter. */
  readonly endpoint: ApiEndpoint;
  /** Kubeconfig of user `kube-fencer`: only what deploy/rbac.yaml grants, and every request audited. */
  readonly fencerKubeconfigPath: string;
  /**
   * Environment for running `fencer` against this lab (region, credentials, cluster). Its EC2 endpoint
   * is the fault injector in front of the emulator, so tests can stage what moto cannot and see every call.
   */
  readonly fencerEnv: Readonly<Record<string, string>>;
  /** The emulator itself (moto), for the lab's own setup and for checking the truth. */
  readonly ec2: { readonly endpoint: string; readonly region: string; readonly client: EC2Client };
  /** The EC2 fault injector the fencer talks to: faults to inject, and the log of the fencer's calls. */
  readonly ec2Faults: Ec2Faults;
  readonly nodes: readonly LabNode[];
  /** The lab's processes (the simulated kubelets run inside the caller's process). */
  readonly components: readonly { readonly name: string; readonly pid: number; readonly logFile: string }[];
  node(name: string): LabNode;
  /** Partition: heartbeats stop, the instance keeps running. */
  cut(name: string): Promise<void>;
  /** Crash: heartbeats stop and the instance stops. */
  crash(name: string): Promise<void>;
  /** Power the instance on again (a new launch time) and let the kubelet come back. */
  restore(name: string): Promise<void>;
  /** The partition heals: the kubelet comes back without the instance being touched. */
  reconnect(name: string): Promise<void>;
  /** The API server's audit events for user `kube-fencer`, oldest first. */
  fencerRequests(): readonly AuditEvent[];
  /** The kubeconfig of an extra identity (`identities` of the options). */
  identityKubeconfigPath(user: string): string;
  /** The API server's audit events for an extra identity, oldest first. */
  requestsBy(user: string): readonly AuditEvent[];
  /** Path of a component's log file (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, csi-attacher, csi-controller, ec2-emulator, ec2-faults, kubelets). */
  logFile(component: string): string;
  readLog(component: string): string;
  stop(): Promise<void>;
}

const readLines = (path: string): string[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
    : [];

const nodeName = (i: number): string => `node-${String.fromCharCode('a'.charCodeAt(0) + i)}`;
const runsRoot = (): string => join(cacheRoot(), 'runs');

/** Keeps the logs of the last few runs for debugging and removes the rest. */
function pruneRuns(keep: number): void {
  let runs: string[] = [];
  try {
    runs = readdirSync(runsRoot());
  } catch {
    return;
  }
  // Labs of other processes (parallel test runs) keep their folders whatever their age.
  const byAge = runs
    .filter((r) => !runInUse(join(runsRoot(), r)))
    .map((r) => ({ r, t: statSync(join(runsRoot(), r)).mtimeMs }))
    .sort((a, b) => b.t - a.t)
    .slice(keep);
  for (const { r } of byAge) rmSync(join(runsRoot(), r), { recursive: true, force: true });
}

/** Starts a lab. Builds the binaries on first use. Stop it with `lab.stop()`; a crashed owner's processes are reaped by the next lab. */
export async function startLab(options: LabOptions = {}): Promise<Lab> {
  const count = options.nodes ?? 2;
  if (count < 2) throw new Error('lab: at least 2 nodes are needed (one to fail, one to take over)');
  const cluster = options.cluster ?? 'lab';
  const region = options.region ?? 'us-east-1';
  const zones = options.zones ?? [`${region}a`];
  const timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const step = options.onStep ?? (() => {});

  reapOrphans(runsRoot());
  pruneRuns(5);
  const binDir = await ensureLabBinaries();
  mkdirSync(runsRoot(), { recursive: true });
  const runDir = await mkdtemp(join(runsRoot(), 'lab-'));
  const logDir = join(runDir, 'logs');
  const pidDir = join(runDir, 'pids');
  mkdirSync(pidDir, { recursive: true });
  const pki = makePki(join(runDir, 'pki'), options.identities);

  const stoppers: (() => Promise<void>)[] = [];
  const processes: ManagedProcess[] = [];
  let fleet: KubeletFleet | undefined;
  const stop = async (): Promise<void> => {
    await fleet?.stop();
    for (const s of stoppers.splice(0).reverse()) await s().catch(() => {});
    rmSync(join(runDir, 'etcd'), { recursive: true, force: true });
  };
  try {
    const [controlPlane, emulator] = await Promise.all([
      startControlPlane({ binDir, runDir, pki, timings, onStep: step }),
      startEc2Emulator({ runDir, region }).then((e: Ec2Emulator) => {
        step('ec2 emulator ready');
        return e;
      }),
    ]);
    // The emulator is its own process group too: record it so a killed owner's emulator is reaped.
    const emulatorPidFile = join(pidDir, 'ec2-emulator.pid');
    writeFileSync(emulatorPidFile, `${emulator.pid} ${process.pid}\n`);
    stoppers.push(controlPlane.stop, async () => {
      await emulator.stop();
      rmSync(emulatorPidFile, { force: true });
    });
    processes.push(...controlPlane.processes);
    const ec2Faults = await startEc2Faults({
      target: emulator.endpoint,
      logFile: join(logDir, 'ec2-faults.log'),
    });
    stoppers.push(ec2Faults.stop);
    const ec2 = ec2ClientFor(emulator);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(controlPlane.kubeconfigPath);

    const nodes: LabNode[] = [];
    for (let i = 0; i < count; i++) {
      const name = nodeName(i);
      const zone = zones[i % zones.length] ?? `${region}a`;
      const { instanceId, privateIp, privateDnsName } = await createClusterInstance(ec2, {
        cluster,
        zone,
        name,
      });
      nodes.push({
        name,
        instanceId,
        zone,
        region,
        providerID: `aws:///${zone}/${instanceId}`,
        privateIp,
        privateDnsName,
      });
    }

    await applyManifest(kubeConfig, join(REPO_ROOT, 'deploy', 'rbac.yaml'));
    const csi = await startCsi({
      binDir,
      runDir,
      kubeconfigPath: controlPlane.kubeconfigPath,
      driverName: LAB_CSI_DRIVER,
      emulator,
      kubeConfig,
    });
    stoppers.push(csi.stop);
    processes.push(...csi.processes);
    step('csi-controller and csi-attacher ready');

    const kubeletLog = join(logDir, 'kubelets.log');
    fleet = new KubeletFleet(kubeConfig, LAB_CSI_DRIVER, (line) =>
      appendFileSync(kubeletLog, `${new Date().toISOString()} ${line}\n`),
    );
    for (const node of nodes) await fleet.register(node);
    fleet.start();
    await waitForNodesReady(
      kubeConfig,
      nodes.map((n) => n.name),
      90_000,
      join(logDir, 'kube-controller-manager.log'),
    );
    step(`${nodes.length} nodes Ready`);

    const byName = new Map(nodes.map((n) => [n.name, n]));
    const node = (name: string): LabNode => {
      const n = byName.get(name);
      if (!n) throw new Error(`lab: no node named ${name} (nodes: ${[...byName.keys()].join(', ')})`);
      return n;
    };
    const theFleet = fleet;
    const logFile = (component: string): string => join(logDir, `${component}.log`);
    return {
      cluster,
      region,
      runDir,
      kubeconfigPath: controlPlane.kubeconfigPath,
      kubeConfig,
      endpoint: kubeConfigEndpoint(kubeConfig),
      fencerKubeconfigPath: controlPlane.fencerKubeconfigPath,
      fencerEnv: {
        AWS_ENDPOINT_URL_EC2: ec2Faults.endpoint,
        AWS_REGION: region,
        AWS_ACCESS_KEY_ID: emulator.accessKeyId,
        AWS_SECRET_ACCESS_KEY: emulator.secretAccessKey,
        FENCER_CLUSTER: cluster,
      },
      ec2: { endpoint: emulator.endpoint, region, client: ec2 },
      ec2Faults,
      nodes,
      components: [
        ...processes.map((p) => ({ name: p.name, pid: p.pid, logFile: p.logFile })),
        { name: 'ec2-emulator', pid: emulator.pid, logFile: emulator.logFile },
      ],
      node,
      async cut(name) {
        theFleet.silence(node(name).name);
      },
      async crash(name) {
        theFleet.silence(node(name).name);
        await stopInstance(ec2, node(name).instanceId);
      },
      async restore(name) {
        await startInstance(ec2, node(name).instanceId);
        await theFleet.revive(name);
      },
      async reconnect(name) {
        await theFleet.revive(node(name).name);
      },
      fencerRequests: () =>
        readLines(logFile('audit'))
          .map((line) => JSON.parse(line) as AuditEvent)
          .filter((e) => e.user.username === 'kube-fencer'),
      identityKubeconfigPath(user) {
        const path = controlPlane.identityKubeconfigPaths.get(user);
        if (!path) throw new Error(`lab: no identity ${user} (give it in startLab's identities)`);
        return path;
      },
      requestsBy: (user) =>
        readLines(logFile('audit'))
          .map((line) => JSON.parse(line) as AuditEvent)
          .filter((e) => e.user.username === user),
      logFile,
      readLog: (component) =>
        existsSync(logFile(component)) ? readFileSync(logFile(component), 'utf8') : '',
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
