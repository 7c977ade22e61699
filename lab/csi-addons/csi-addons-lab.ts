/**
 * csi-addons in the lab, the way Rook and OpenShift Data Foundation run it: the real csi-addons
 * controller (kubernetes-csi-addons' manager) reconciling NetworkFences against the lab's API server,
 * and in front of Ceph a stand-in of ceph-csi's csi-addons side (./fence-sidecar.ts says what it
 * stands in for). The controller finds the stand-in as it finds ceph-csi's: a CSIAddonsNode whose
 * endpoint names a Pod, and the driver's leader Lease naming that Pod.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  KubernetesObjectApi,
  loadAllYaml,
} from '@kubernetes/client-node';
import { CSI_ADDONS_FILES, ensureCsiAddons } from '../build/csi-addons.js';
import type { CephAdmin } from '../ceph/admin-client.js';
import { type ManagedProcess, startProcess, waitUntil } from '../process.js';
import { type FenceSidecar, startFenceSidecar } from './fence-sidecar.js';

const GROUP = 'csiaddons.openshift.io';
const VERSION = 'v1alpha1';
/** Where Rook runs ceph-csi and its csi-addons side. */
export const CSI_ADDONS_NAMESPACE = 'rook-ceph';
const PROVISIONER_POD = 'csi-rbdplugin-provisioner-0';
const FENCE_SECRET = 'rook-csi-rbd-provisioner';

export interface LabCsiAddons {
  /** The NetworkFenceClass the fencer names (`FENCER_CEPH_NETWORK_FENCE_CLASS`). */
  readonly networkFenceClass: string;
  readonly sidecar: FenceSidecar;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

export interface CsiAddonsOptions {
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigPath: string;
  readonly runDir: string;
  readonly driver: string;
  /** The address the stand-in listens on (the Ceph bridge's host side, where the Pod "runs"). */
  readonly host: string;
  readonly admin: CephAdmin;
  readonly clusterId: string;
}

const normalizeLeaseName = (name: string): string => {
  const n = name.replace(/[^a-zA-Z0-9-]/g, '-');
  return n.endsWith('-') ? `${n}X` : n;
};

async function createAll(kc: KubeConfig, objects: readonly object[]): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kc);
  for (const object of objects) await client.create(object as never);
}

/** The CRDs, established before anything names them. */
async function installCrds(kc: KubeConfig, dir: string): Promise<void> {
  const crds = loadAllYaml(readFileSync(join(dir, CSI_ADDONS_FILES.crds), 'utf8'));
  await createAll(kc, crds);
  const client = KubernetesObjectApi.makeApiClient(kc);
  for (const crd of crds as { metadata: { name: string } }[]) {
    await waitUntil(
      { name: `CRD ${crd.metadata.name}`, logFile: '(API server)' },
      async () => {
        const read = (await client.read({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: crd.metadata.name },
        })) as { status?: { conditions?: { type: string; status: string }[] } };
        return (read.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
      },
      30_000,
    );
  }
}

/**
 * The Pod the CSIAddonsNode's endpoint names. No kubelet runs it (a scheduling gate keeps it off every
 * node); its status carries the address the stand-in listens on, as a running Pod's would.
 */
async function providerPod(kc: KubeConfig, host: string): Promise<void> {
  await createAll(kc, [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: PROVISIONER_POD, namespace: CSI_ADDONS_NAMESPACE },
      spec: {
        schedulingGates: [{ name: 'lab.kube-fencer.io/stand-in' }],
        containers: [{ name: 'csi-addons', image: 'lab/stand-in' }],
      },
    },
  ]);
  const core = kc.makeApiClient(CoreV1Api);
  const pod = await core.readNamespacedPod({ name: PROVISIONER_POD, namespace: CSI_ADDONS_NAMESPACE });
  pod.status = { ...pod.status, podIP: host, podIPs: [{ ip: host }] };
  await core.replaceNamespacedPodStatus({
    name: PROVISIONER_POD,
    namespace: CSI_ADDONS_NAMESPACE,
    body: pod,
  });
}

export async function startCsiAddons(options: CsiAddonsOptions): Promise<LabCsiAddons> {
  const dir = await ensureCsiAddons();
  const kc = options.kubeConfig;
  await installCrds(kc, dir);
  await createAll(kc, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CSI_ADDONS_NAMESPACE } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: FENCE_SECRET, namespace: CSI_ADDONS_NAMESPACE },
      stringData: { userID: 'csi-rbd-provisioner', userKey: 'lab-stand-in-does-not-read-it' },
    },
  ]);
  const sidecar = await startFenceSidecar({
    protoDir: dir,
    host: options.host,
    driver: options.driver,
    admin: options.admin,
    clusterId: options.clusterId,
  });
  const port = sidecar.endpoint.split(':').at(-1);
  await providerPod(kc, options.host);
  const networkFenceClass = 'ceph-rbd-networkfence';
  await createAll(kc, [
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: `${normalizeLeaseName(options.driver)}-csi-addons`, namespace: CSI_ADDONS_NAMESPACE },
      spec: { holderIdentity: normalizeLeaseName(PROVISIONER_POD), leaseDurationSeconds: 3600 },
    },
    {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'CSIAddonsNode',
      metadata: { name: PROVISIONER_POD, namespace: CSI_ADDONS_NAMESPACE },
      spec: {
        driver: {
          name: options.driver,
          endpoint: `pod://${PROVISIONER_POD}.${CSI_ADDONS_NAMESPACE}:${port}`,
          nodeID: 'lab-controller',
        },
      },
    },
    {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'NetworkFenceClass',
      metadata: { name: networkFenceClass },
      spec: {
        provisioner: options.driver,
        parameters: {
          clusterID: options.clusterId,
          'csiaddons.openshift.io/networkfence-secret-name': FENCE_SECRET,
          'csiaddons.openshift.io/networkfence-secret-namespace': CSI_ADDONS_NAMESPACE,
        },
      },
    },
  ]);

  const logDir = join(options.runDir, 'logs');
  const process = startProcess({
    name: 'csi-addons-controller',
    command: join(dir, CSI_ADDONS_FILES.manager),
    args: [
      '--enable-auth=false',
      '--metrics-bind-address=0',
      '--health-probe-bind-address=127.0.0.1:0',
      `--namespace=${CSI_ADDONS_NAMESPACE}`,
    ],
    logDir,
    pidDir: join(options.runDir, 'pids'),
    env: { ...globalThis.process.env, KUBECONFIG: options.kubeconfigPath },
  });
  const custom = kc.makeApiClient(CustomObjectsApi);
  await waitUntil(
    { name: 'csi-addons-controller', logFile: process.logFile, proc: process },
    async () => {
      const node = (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: CSI_ADDONS_NAMESPACE,
        plural: 'csiaddonsnodes',
        name: PROVISIONER_POD,
      })) as { status?: { state?: string } };
      return node.status?.state === 'Connected';
    },
    60_000,
  );
  return {
    networkFenceClass,
    sidecar,
    process,
    stop: async () => {
      await process.stop();
      await sidecar.stop();
    },
  };
}
