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
import { CEPH_ENV } from '../lib/adapters/ceph-rbd/settings.js';
import type { ApiEndpoint } from '../lib/adapters/kubernetes/api/endpoint.js';
import { ensureLabBinaries } from './build/go-binaries.js';
import { ensureLegacyKubernetes } from './build/legacy-kubernetes.js';
import { type CephLab, startCephLab } from './ceph/ceph-lab.js';
import { reapOrphanNetworks } from './ceph/network.js';
import { RBD_CSI_DRIVER, RbdNodeStager } from './ceph/rbd-node-stager.js';
import {
  type ControlPlaneTimings,
  DEFAULT_TIMINGS,
  type KcmController,
  startControlPlane,
} from './control-plane.js';
import { startCsi } from './csi.js';
import { type LabCsiAddons, startCsiAddons } from './csi-addons/csi-addons-lab.js';
import { addPrivateIp } from './ec2-emulator.js';
import type { Ec2Faults } from './ec2-faults/index.js';
import { kubeConfigEndpoint } from './kubeconfig-endpoint.js';
import { KubeletFleet } from './kubelets.js';
import type { LabEcs, LabNode, LabProvider } from './lab-types.js';

export type { LabEcs, LabNode, LabProvider } from './lab-types.js';

import { type LabCloud, startAlibabaCloud, startAwsCloud } from './lab-clouds.js';
import { applyManifest } from './manifests.js';
import { cacheRoot, REPO_ROOT } from './paths.js';
import { type LabIdentity, makePki } from './pki.js';
import { labStartSlots, withStartSlot } from './start-slots.js';

export type { LabIdentity } from './pki.js';

import { type ManagedProcess, reapOrphans, runInUse } from './process.js';
import { waitForNodesReady } from './readiness.js';
import { recordTiming } from './timing-log.js';

/** The CSI driver name the AWS-flavoured lab's controller registers: it stands in for the EBS CSI driver. */
export const LAB_CSI_DRIVER = 'ebs.csi.aws.com';

export interface LabOptions {
  /**
   * `aws` (default): EC2 instances in moto, EBS volumes, ebs.csi.aws.com. `alibaba`: ACK-like workers
   * whose ECS instances and cloud disks live in the ECS emulator, diskplugin.csi.alibabacloud.com.
   */
  readonly provider?: LabProvider;
  /** How many worker nodes (node-a, node-b, ...). At least 2, so that a pod has somewhere to go. */
  readonly nodes?: number;
  /** Availability zone of each node, round-robin. Default: all in one zone, so volumes can move. */
  readonly zones?: readonly string[];
  /** The cluster name in the instances' ownership tag `kubernetes.io/cluster/<name>`. */
  readonly cluster?: string;
  readonly region?: string;
  readonly timings?: Partial<ControlPlaneTimings>;
  /**
   * kube-controller-manager controllers to leave off, for a test that writes what a controller would
   * and must not race it. @default none: every controller the incident needs runs
   */
  readonly withoutControllers?: readonly KcmController[];
  /** Extra users of the API server, each in its groups, each with a kubeconfig and audited. @default none */
  readonly identities?: readonly LabIdentity[];
  /** Progress lines while the lab starts (default: none). */
  readonly onStep?: (message: string) => void;
  /**
   * `legacy`: the control plane runs Kubernetes LAB_VERSIONS.legacyKubernetes (1.25), where the
   * out-of-service taint releases nothing and the fencer cures by its legacy path. Built on first use
   * (`npm run lab:build` builds it too). @default current (LAB_VERSIONS.kubernetes)
   */
  readonly kubernetes?: 'current' | 'legacy';
  /**
   * A real Ceph cluster beside the control plane (every node gets a storage-network address, its
   * InternalIP, and the `rbd.csi.ceph.com` driver). Off by default: it costs about 0.4 GB and 10-15 s.
   */
  readonly ceph?: boolean | LabCephOptions;
  /**
   * Workers registered without a providerID, as on bare metal: no compute provider can resolve their
   * machine, so a storage fence is their only barrier. The lab still runs them on an emulated instance
   * (its addresses, its crash and restore); a restore after a crash boots them anew (a new bootID).
   * @default none
   */
  readonly bareMetal?: readonly string[];
  /**
   * Ceph-using workers whose kubelet does not post their storage-network address: their Ceph clients
   * use an address their Node never names (a storage network on a second NIC). @default none
   */
  readonly storageAddressUnreported?: readonly string[];
}

/** How the lab's Ceph behaves. */
export interface LabCephOptions {
  /** How long an OSD keeps a dead client's watch. @default 30 (Ceph's default) */
  readonly watchTimeoutSeconds?: number;
  /** How often the nodes' RBD clients write. @default 500 */
  readonly writeIntervalMs?: number;
  /**
   * csi-addons beside ceph-csi, as Rook and ODF run them: the real csi-addons controller, its CRDs and
   * a NetworkFenceClass, with a stand-in of ceph-csi's fence code (lab/csi-addons). @default off
   */
  readonly csiAddons?: boolean;
}

/** The lab's Ceph, and the node side of its CSI driver. */
export interface LabCeph extends CephLab {
  readonly stager: RbdNodeStager;
  /** Where `fencerEnv`'s `FENCER_CEPH_CA_FILE` points: the mgr's self-signed certificate. */
  readonly caFile: string;
  /** csi-addons, when the lab was started with `ceph: { csiAddons: true }`. */
  readonly csiAddons?: LabCsiAddons;
}

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
  /** When the stage (ResponseComplete: the answer written) was reached. */
  readonly stageTimestamp?: string;
}

/** A running lab: a real control plane, a CSI attacher, an EC2 emulator and simulated kubelets. */
export interface Lab {
  readonly provider: LabProvider;
  readonly cluster: string;
  readonly region: string;
  readonly runDir: string;
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  /** The admin kubeconfig as an endpoint for the fencer's Kubernetes adapter. */
  readonly endpoint: ApiEndpoint;
  /** The control plane's etcd client URL, for seeding objects under the API server (lab/etcd-seed.ts). */
  readonly etcdUrl: string;
  /** Kubeconfig of user `kube-fencer`: only what deploy/rbac.yaml grants, and every request audited. */
  readonly fencerKubeconfigPath: string;
  /**
   * Environment for running `fencer` against this lab (region, credentials, cluster). On AWS its EC2
   * endpoint is the fault injector in front of the emulator, so tests can stage what moto cannot and see
   * every call; on Alibaba it is the ECS emulator, which injects faults itself.
   */
  readonly fencerEnv: Readonly<Record<string, string>>;
  /** The EC2 emulator itself (moto), for the lab's own setup and for checking the truth; reading it in the Alibaba-flavoured lab throws. */
  readonly ec2: { readonly endpoint: string; readonly region: string; readonly client: EC2Client };
  /** The EC2 fault injector the fencer talks to; reading it in the Alibaba-flavoured lab throws. */
  readonly ec2Faults: Ec2Faults;
  /** The ECS emulator; `undefined` in the AWS-flavoured lab. */
  readonly ecs?: LabEcs;
  /** The CSI driver the lab's controller registers as. */
  readonly csiDriver: string;
  /** The topology key of the driver's PVs' zone affinity. */
  readonly volumeTopologyKey: string;
  /** Creates an unattached disk (EBS volume or cloud disk) in `zone`; resolves to its id (the PV's volumeHandle). */
  createVolume(input: { readonly zone: string; readonly sizeGiB: number }): Promise<string>;
  /** The Ceph cluster when the lab was started with `ceph`, else undefined. */
  readonly ceph: LabCeph | undefined;
  readonly nodes: readonly LabNode[];
  /** The lab's processes (the simulated kubelets run inside the caller's process). */
  readonly components: readonly { readonly name: string; readonly pid: number; readonly logFile: string }[];
  node(name: string): LabNode;
  /**
   * Partition: heartbeats stop, the instance keeps running (and its Ceph clients keep writing). Resolves
   * once the node is silent: nothing of its kubelet reaches the API server after that.
   */
  cut(name: string): Promise<void>;
  /** Crash: heartbeats stop and the instance stops (and its Ceph clients die). */
  crash(name: string): Promise<void>;
  /** Power the instance on again (its launch time in a later whole second than the call) and let the kubelet come back. */
  restore(name: string): Promise<void>;
  /** The partition heals: the kubelet comes back without the instance being touched. */
  reconnect(name: string): Promise<void>;
  /** The API server's audit events for user `kube-fencer`, oldest first. */
  fencerRequests(): readonly AuditEvent[];
  /** The kubeconfig of an extra identity (`identities` of the options). */
  identityKubeconfigPath(user: string): string;
  /** The API server's audit events for an extra identity, oldest first. */
  requestsBy(user: string): readonly AuditEvent[];
  /** Path of a component's log file (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, csi-attacher, csi-controller, ec2-emulator, kubelets). */
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

/** A run folder holding this file is one whose start failed; the file holds the error. */
const FAILED_MARKER = 'START-FAILED';

/**
 * Keeps the logs of the last few runs for debugging, and of the last few runs that failed to start
 * (their error names a log: in a long test run, many labs start after it), and removes the rest.
 */
export function pruneRuns(root: string, keep: number): void {
  let runs: string[] = [];
  try {
    runs = readdirSync(root);
  } catch {
    return;
  }
  // Labs of other processes (parallel test runs) keep their folders whatever their age.
  const byAge = runs
    .filter((r) => !runInUse(join(root, r)))
    .map((r) => ({ r, t: statSync(join(root, r)).mtimeMs, failed: existsSync(join(root, r, FAILED_MARKER)) }))
    .sort((a, b) => b.t - a.t);
  const stale = [
    ...byAge.filter((run) => !run.failed).slice(keep),
    ...byAge.filter((run) => run.failed).slice(keep),
  ];
  for (const { r } of stale) rmSync(join(root, r), { recursive: true, force: true });
}

/** Starts a lab. Builds the binaries on first use. Stop it with `lab.stop()`; a crashed owner's processes are reaped by the next lab. */
export async function startLab(options: LabOptions = {}): Promise<Lab> {
  const what = `${options.provider ?? 'aws'} lab, ${options.nodes ?? 2} nodes${options.ceph ? ', Ceph' : ''}${options.kubernetes === 'legacy' ? ', legacy Kubernetes' : ''}`;
  const asked = Date.now();
  const onWait = () => options.onStep?.('waiting for another lab on this machine to finish starting');
  return withStartSlot(
    join(cacheRoot(), 'start-slots'),
    labStartSlots(),
    async () => {
      const started = Date.now();
      if (started - asked >= 1000) recordTiming('wait', 'a free lab start slot', started - asked);
      try {
        const lab = await bootLab(options);
        recordTiming('lab-start', what, Date.now() - started);
        return lab;
      } catch (error) {
        recordTiming('lab-start', what, Date.now() - started, false);
        throw error;
      }
    },
    onWait,
  );
}

async function bootLab(options: LabOptions): Promise<Lab> {
  const count = options.nodes ?? 2;
  if (count < 2) throw new Error('lab: at least 2 nodes are needed (one to fail, one to take over)');
  const cluster = options.cluster ?? 'lab';
  const provider = options.provider ?? 'aws';
  const region = options.region ?? (provider === 'alibaba' ? 'cn-hangzhou' : 'us-east-1');
  const zones = options.zones ?? [provider === 'alibaba' ? `${region}-i` : `${region}a`];
  const timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const step = options.onStep ?? (() => {});

  reapOrphans(runsRoot());
  // Before pruning: a pruned folder's network state file could no longer be found.
  await reapOrphanNetworks(runsRoot());
  pruneRuns(runsRoot(), 5);
  const binDir = await ensureLabBinaries();
  const legacyBinDir = options.kubernetes === 'legacy' ? await ensureLegacyKubernetes() : undefined;
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
  let ceph: LabCeph | undefined;
  try {
    const cephOptions = options.ceph === true ? {} : options.ceph || undefined;
    // A Ceph node's storage address becomes one of its EC2 instance's addresses (see addPrivateIp).
    if (cephOptions && provider !== 'aws')
      throw new Error('lab: Ceph runs beside the AWS-flavoured lab only');
    const nodeNames = Array.from({ length: count }, (_, i) => nodeName(i));
    const cephStarting = cephOptions
      ? startCephLab({ nodes: nodeNames, runDir, onStep: step, ...cephOptions })
      : undefined;
    // Stopped with the lab even when another component fails while Ceph is still starting.
    stoppers.push(async () => (await cephStarting?.catch(() => undefined))?.stop());
    const [controlPlane, cloud, cephLab] = await Promise.all([
      startControlPlane({
        binDir,
        legacyBinDir,
        runDir,
        pki,
        timings,
        withoutControllers: options.withoutControllers,
        onStep: step,
      }),
      (provider === 'alibaba'
        ? startAlibabaCloud({ runDir, region })
        : startAwsCloud({ runDir, pidDir, region })
      ).then((c: LabCloud) => {
        step(`${c.component.name} ready`);
        return c;
      }),
      cephStarting,
    ]);
    stoppers.push(controlPlane.stop, cloud.stop);
    if (cephLab) {
      const caFile = join(runDir, 'ceph', 'restful.crt');
      writeFileSync(caFile, cephLab.restful.certificate);
      ceph = Object.assign(cephLab, { stager: new RbdNodeStager(cephLab), caFile });
    }
    processes.push(...controlPlane.processes);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(controlPlane.kubeconfigPath);

    const nodes: LabNode[] = [];
    for (let i = 0; i < count; i++) {
      const zone = zones[i % zones.length] ?? zones[0] ?? region;
      nodes.push(await cloud.createWorker({ cluster, zone, name: nodeName(i) }));
    }

    // A Ceph node's storage-network address is one of its machine's addresses (see addPrivateIp).
    const ec2Client = cloud.ec2?.client;
    if (ceph && ec2Client) {
      for (const n of nodes) await addPrivateIp(ec2Client, n.instanceId, ceph.address(n.name));
    }

    await applyManifest(kubeConfig, join(REPO_ROOT, 'deploy', 'rbac.yaml'));
    const csi = await startCsi({
      binDir,
      runDir,
      kubeconfigPath: controlPlane.kubeconfigPath,
      driverName: cloud.csiDriver,
      ...cloud.csi,
      kubeConfig,
    });
    stoppers.push(csi.stop);
    processes.push(...csi.processes);
    step('csi-controller and csi-attacher ready');
    if (ceph) {
      const rbd = await startCsi({
        binDir,
        runDir,
        kubeconfigPath: controlPlane.kubeconfigPath,
        driverName: RBD_CSI_DRIVER,
        mode: 'rbd',
        kubeConfig,
      });
      stoppers.push(rbd.stop);
      processes.push(...rbd.processes);
      step('csi-rbd-controller and csi-rbd-attacher ready');
      if (cephOptions?.csiAddons) {
        const csiAddons = await startCsiAddons({
          kubeConfig,
          kubeconfigPath: controlPlane.kubeconfigPath,
          runDir,
          driver: RBD_CSI_DRIVER,
          host: ceph.hostIp,
          admin: ceph.admin,
          clusterId: ceph.fsid,
        });
        stoppers.push(csiAddons.stop);
        processes.push(csiAddons.process);
        ceph = Object.assign(ceph, { csiAddons });
        step('csi-addons controller ready');
      }
    }

    const kubeletLog = join(logDir, 'kubelets.log');
    fleet = new KubeletFleet(
      kubeConfig,
      cloud.csiDriver,
      (line) => appendFileSync(kubeletLog, `${new Date().toISOString()} ${line}\n`),
      ceph?.stager,
    );
    const bareMetal = new Set(options.bareMetal ?? []);
    for (const name of bareMetal) {
      if (!nodes.some((n) => n.name === name)) throw new Error(`lab: bareMetal names no worker ${name}`);
    }
    for (const node of nodes) {
      const unreported = options.storageAddressUnreported?.includes(node.name) ?? false;
      await fleet.register({
        ...node,
        ...(bareMetal.has(node.name) ? { providerID: '' } : {}),
        ...(unreported ? { storageAddressUnreported: true } : {}),
      });
    }
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
    const ec2 = cloud.ec2;
    return {
      provider,
      cluster,
      region,
      runDir,
      kubeconfigPath: controlPlane.kubeconfigPath,
      kubeConfig,
      endpoint: kubeConfigEndpoint(kubeConfig),
      etcdUrl: controlPlane.etcdUrl,
      fencerKubeconfigPath: controlPlane.fencerKubeconfigPath,
      fencerEnv: {
        ...cloud.fencerEnv,
        FENCER_CLUSTER: cluster,
        ...(ceph
          ? {
              [CEPH_ENV.mgrUrl]: ceph.restful.url,
              [CEPH_ENV.keyName]: ceph.restful.keyName,
              [CEPH_ENV.key]: ceph.restful.key,
              [CEPH_ENV.caFile]: ceph.caFile,
              [CEPH_ENV.serverName]: ceph.restful.serverName,
              [CEPH_ENV.witnessUser]: ceph.witness.user,
              [CEPH_ENV.witnessKeyring]: ceph.witness.keyring,
              [CEPH_ENV.conf]: ceph.conf,
            }
          : {}),
      },
      get ec2() {
        if (!ec2) throw new Error('lab: this lab runs the Alibaba flavour (no EC2); use lab.ecs');
        return ec2;
      },
      get ec2Faults() {
        if (!cloud.ec2Faults) throw new Error('lab: this lab runs the Alibaba flavour (no EC2); use lab.ecs');
        return cloud.ec2Faults;
      },
      ecs: cloud.ecs,
      csiDriver: cloud.csiDriver,
      volumeTopologyKey: cloud.volumeTopologyKey,
      createVolume: (input) => cloud.createVolume({ ...input, cluster }),
      ceph,
      nodes,
      components: [
        ...processes.map((p) => ({ name: p.name, pid: p.pid, logFile: p.logFile })),
        cloud.component,
        ...(ceph?.components ?? []),
      ],
      node,
      async cut(name) {
        await theFleet.silence(node(name).name);
      },
      async crash(name) {
        await theFleet.silence(node(name).name);
        await ceph?.stager.crash(name);
        await cloud.stopInstance(node(name).instanceId);
      },
      async restore(name) {
        // Providers report launch times to the second (ECS: the minute): start in the next whole second,
        // so the launch is visibly later than anything that happened before the call, a fence included.
        await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
        await cloud.startInstance(node(name).instanceId);
        await theFleet.revive(name, { rebooted: true });
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
    // Kept past the pruning of passed runs: the error names logs in this folder.
    try {
      writeFileSync(join(runDir, FAILED_MARKER), `${err instanceof Error ? err.message : String(err)}\n`);
    } catch {
      // The start's own error is the one to report.
    }
    throw err;
  }
}
