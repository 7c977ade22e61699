import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, httpsGet } from './net.js';
import { kubeconfigYaml, type LabPki } from './pki.js';
import { type ManagedProcess, startProcess, waitUntil } from './process.js';

/** Timings of the lab's control plane; short, so that incidents play out in seconds. */
export interface ControlPlaneTimings {
  /** How long a node may stay silent before it turns NotReady/Unknown (node-monitor-grace-period). */
  readonly nodeMonitorGraceSeconds: number;
  /** Default toleration of not-ready/unreachable taints: how long before a silent node's pods are evicted. */
  readonly evictionTolerationSeconds: number;
}

export const DEFAULT_TIMINGS: ControlPlaneTimings = {
  nodeMonitorGraceSeconds: 10,
  evictionTolerationSeconds: 20,
};

/**
 * The controllers the incident needs, by canonical name. Attach-detach runs with
 * `--disable-force-detach-on-timeout`, so in the lab nothing but fencing releases a volume.
 */
export const KCM_CONTROLLERS = [
  'node-lifecycle-controller',
  'taint-eviction-controller',
  'pod-garbage-collector-controller',
  'statefulset-controller',
  'deployment-controller',
  'replicaset-controller',
  'persistentvolume-binder-controller',
  'persistentvolume-attach-detach-controller',
] as const;

export type KcmController = (typeof KCM_CONTROLLERS)[number];

/**
 * The same controllers as a kube-controller-manager older than 1.26 names them (the legacy lab). It has
 * no taint-eviction controller of its own: node-lifecycle evicts, unless `--enable-taint-manager=false`.
 */
const LEGACY_CONTROLLER_NAMES: Readonly<Record<KcmController, string | null>> = {
  'node-lifecycle-controller': 'nodelifecycle',
  'taint-eviction-controller': null,
  'pod-garbage-collector-controller': 'podgc',
  'statefulset-controller': 'statefulset',
  'deployment-controller': 'deployment',
  'replicaset-controller': 'replicaset',
  'persistentvolume-binder-controller': 'persistentvolume-binder',
  'persistentvolume-attach-detach-controller': 'attachdetach',
};

/**
 * kube-controller-manager's flags for the controllers and the release: the current one runs attach-detach
 * with `--disable-force-detach-on-timeout`; a legacy one has no such flag, and force-detaches a volume of
 * an unhealthy node six minutes after its pod was deleted (longer than any legacy test runs).
 */
export function controllerFlags(running: readonly KcmController[], legacy: boolean): string[] {
  if (!legacy) {
    return [`--controllers=${running.join(',')}`, '--disable-force-detach-on-timeout=true'];
  }
  const names = running.flatMap((c) => LEGACY_CONTROLLER_NAMES[c] ?? []);
  return [
    `--controllers=${names.join(',')}`,
    `--enable-taint-manager=${running.includes('taint-eviction-controller')}`,
  ];
}

export interface ControlPlane {
  readonly server: string;
  /** etcd's client URL (plain HTTP on loopback), for tools that seed it directly (lab/etcd-seed.ts). */
  readonly etcdUrl: string;
  readonly kubeconfigPath: string;
  /** A kubeconfig for user `kube-fencer`, bound to deploy/rbac.yaml and audited. */
  readonly fencerKubeconfigPath: string;
  /** A kubeconfig per extra identity (audited too), by user name. */
  readonly identityKubeconfigPaths: ReadonlyMap<string, string>;
  readonly processes: readonly ManagedProcess[];
  stop(): Promise<void>;
}

interface StartControlPlaneOptions {
  /** Where etcd is, and kube-apiserver, kube-controller-manager and kube-scheduler unless `legacyBinDir`. */
  readonly binDir: string;
  /** Run the Kubernetes components from here instead: the legacy release (lab/build/legacy-kubernetes.ts). */
  readonly legacyBinDir?: string;
  readonly runDir: string;
  readonly pki: LabPki;
  readonly timings: ControlPlaneTimings;
  /** Controllers of KCM_CONTROLLERS to leave off. @default none */
  readonly withoutControllers?: readonly KcmController[];
  readonly onStep?: (message: string) => void;
}

function writeAuditPolicy(runDir: string, users: readonly string[]): string {
  const path = join(runDir, 'audit-policy.yaml');
  writeFileSync(
    path,
    [
      'apiVersion: audit.k8s.io/v1',
      'kind: Policy',
      'omitStages: [RequestReceived]',
      'rules:',
      // The CLI's access reviews (its preflight) store nothing: questions, not writes, left out of the log.
      '  - level: None',
      '    resources:',
      '      - {group: authorization.k8s.io, resources: [selfsubjectaccessreviews]}',
      '      - {group: authentication.k8s.io, resources: [selfsubjectreviews]}',
      '  - level: Metadata',
      `    users: [${users.join(', ')}]`,
      '  - level: None',
      '',
    ].join('\n'),
  );
  return path;
}

/** Starts etcd, kube-apiserver, kube-controller-manager and kube-scheduler on loopback, in that order. */
export async function startControlPlane(options: StartControlPlaneOptions): Promise<ControlPlane> {
  const { binDir, runDir, pki, timings } = options;
  const logDir = join(runDir, 'logs');
  const pidDir = join(runDir, 'pids');
  const legacy = options.legacyBinDir !== undefined;
  const bin = (name: string): string =>
    join(name === 'etcd' ? binDir : (options.legacyBinDir ?? binDir), name);
  const processes: ManagedProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const p of [...processes].reverse()) await p.stop();
  };
  try {
    const [etcdClient, etcdPeer, apiPort, kcmPort, schedPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    const etcd = startProcess({
      name: 'etcd',
      command: bin('etcd'),
      args: [
        '--name=lab',
        `--data-dir=${join(runDir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=lab=${peerUrl}`,
        '--initial-cluster-state=new',
        '--unsafe-no-fsync',
        '--quota-backend-bytes=4294967296',
        '--log-level=warn',
      ],
      logDir,
      pidDir,
    });
    processes.push(etcd);
    await waitUntil(etcd, async () => (await fetch(`${etcdUrl}/health`)).ok, 30_000);
    options.onStep?.('etcd ready');

    const server = `https://127.0.0.1:${apiPort}`;
    const apiserver = startProcess({
      name: 'kube-apiserver',
      command: bin('kube-apiserver'),
      args: [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${apiPort}`,
        '--advertise-address=127.0.0.1',
        `--tls-cert-file=${pki.serverCert}`,
        `--tls-private-key-file=${pki.serverKey}`,
        `--cert-dir=${join(runDir, 'apiserver-certs')}`,
        `--token-auth-file=${pki.tokenFile}`,
        '--authorization-mode=RBAC',
        `--service-account-issuer=${server}`,
        `--service-account-key-file=${pki.saPublicKey}`,
        `--service-account-signing-key-file=${pki.saPrivateKey}`,
        '--service-cluster-ip-range=10.96.0.0/24',
        '--endpoint-reconciler-type=none',
        '--disable-admission-plugins=ServiceAccount',
        `--default-not-ready-toleration-seconds=${timings.evictionTolerationSeconds}`,
        `--default-unreachable-toleration-seconds=${timings.evictionTolerationSeconds}`,
        // Every request by the fencer's own user is audited, so tests can prove what it did and did not do.
        `--audit-policy-file=${writeAuditPolicy(runDir, ['kube-fencer', ...pki.identityTokens.keys()])}`,
        `--audit-log-path=${join(logDir, 'audit.log')}`,
        '--audit-log-format=json',
        '--profiling=false',
        '--v=1',
      ],
      logDir,
      pidDir,
    });
    processes.push(apiserver);
    const ca = readFileSync(pki.caCert);
    await waitUntil(
      apiserver,
      async () => (await httpsGet(`${server}/readyz`, { ca, token: pki.adminToken })).body === 'ok',
      120_000,
    );
    options.onStep?.('kube-apiserver ready');

    const kubeconfigPath = join(runDir, 'admin.kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfigYaml(server, pki.caCert, pki.adminToken), { mode: 0o600 });
    const fencerKubeconfigPath = join(runDir, 'fencer.kubeconfig');
    writeFileSync(fencerKubeconfigPath, kubeconfigYaml(server, pki.caCert, pki.fencerToken), { mode: 0o600 });
    const identityKubeconfigPaths = new Map<string, string>();
    for (const [user, token] of pki.identityTokens) {
      const path = join(runDir, `${user}.kubeconfig`);
      writeFileSync(path, kubeconfigYaml(server, pki.caCert, token), { mode: 0o600 });
      identityKubeconfigPaths.set(user, path);
    }

    const kcm = startProcess({
      name: 'kube-controller-manager',
      command: bin('kube-controller-manager'),
      args: [
        `--kubeconfig=${kubeconfigPath}`,
        `--authentication-kubeconfig=${kubeconfigPath}`,
        `--authorization-kubeconfig=${kubeconfigPath}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${kcmPort}`,
        `--cert-dir=${join(runDir, 'kcm-certs')}`,
        '--leader-elect=false',
        '--use-service-account-credentials=false',
        ...controllerFlags(
          KCM_CONTROLLERS.filter((c) => !options.withoutControllers?.includes(c)),
          legacy,
        ),
        '--node-monitor-period=1s',
        `--node-monitor-grace-period=${timings.nodeMonitorGraceSeconds}s`,
        '--node-startup-grace-period=30s',
        '--node-eviction-rate=10',
        '--v=2',
      ],
      logDir,
      pidDir,
    });
    processes.push(kcm);
    const scheduler = startProcess({
      name: 'kube-scheduler',
      command: bin('kube-scheduler'),
      args: [
        `--kubeconfig=${kubeconfigPath}`,
        `--authentication-kubeconfig=${kubeconfigPath}`,
        `--authorization-kubeconfig=${kubeconfigPath}`,
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${schedPort}`,
        `--cert-dir=${join(runDir, 'scheduler-certs')}`,
        '--v=2',
      ],
      logDir,
      pidDir,
    });
    processes.push(scheduler);
    const healthy = (port: number) => async () =>
      (await httpsGet(`https://127.0.0.1:${port}/healthz`)).status === 200;
    // As long as the API server gets: on a busy 2-core machine (three labs starting at once), the
    // scheduler once took over 60 s to serve its health endpoint.
    await Promise.all([
      waitUntil(kcm, healthy(kcmPort), 120_000),
      waitUntil(scheduler, healthy(schedPort), 120_000),
    ]);
    options.onStep?.('kube-controller-manager and kube-scheduler ready');
    return {
      server,
      etcdUrl,
      kubeconfigPath,
      fencerKubeconfigPath,
      identityKubeconfigPaths,
      processes,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
