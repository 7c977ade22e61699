import { randomUUID } from 'node:crypto';
import {
  AppsV1Api,
  CoreV1Api,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1CSIPersistentVolumeSource,
  type V1Pod,
  type V1VolumeAttachment,
  type V1VolumeNodeAffinity,
} from '@kubernetes/client-node';
import { RBD_CSI_DRIVER } from '../ceph/rbd-node-stager.js';
import { eventually } from '../kube-wait.js';
import type { Lab } from '../lab.js';

export const LAB_STORAGE_CLASS = 'lab-ebs';
export const LAB_RBD_STORAGE_CLASS = 'lab-rbd';

/** Where the app's volume lives: the cloud's disk (EBS or an Alibaba cloud disk), or an RBD image in the lab's Ceph. */
export type AppStorage = 'ebs' | 'rbd';

/** A StatefulSet with one replica and one RWO volume (a cloud disk or Ceph RBD): the database of the incident. */
export interface StatefulApp {
  readonly name: string;
  readonly namespace: string;
  readonly podName: string;
  readonly pvcName: string;
  readonly pvName: string;
  readonly storage: AppStorage;
  /** The EBS volume id, or the RBD image's name. */
  readonly volumeId: string;
}

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Where the app runs and how its pod tolerates taints. */
export interface StatefulAppOptions {
  readonly name?: string;
  readonly onNode: string;
  /** Where the volume lives. @default 'ebs' */
  readonly storage?: AppStorage;
  /**
   * The pod tolerates every NoExecute taint for good, the out-of-service one included (some
   * operators' pods do): neither the unreachable taint nor the fence's taint evicts it, so it keeps its
   * volume on a fenced node until someone deletes it.
   */
  readonly toleratesOutOfService?: boolean;
}

/**
 * Creates the StorageClass (WaitForFirstConsumer), a disk in the lab's cloud with its PV, and a
 * StatefulSet whose pod lands on `onNode` (the other nodes are cordoned until it is placed).
 */
export async function deployStatefulApp(lab: Lab, options: StatefulAppOptions): Promise<StatefulApp> {
  const name = options.name ?? 'db';
  const namespace = 'default';
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const apps = lab.kubeConfig.makeApiClient(AppsV1Api);
  const storage = lab.kubeConfig.makeApiClient(StorageV1Api);
  const home = lab.node(options.onNode);
  const pvcName = `data-${name}-0`;
  const volume = options.storage === 'rbd' ? await rbdVolume(lab) : await ebsVolume(lab, home.zone);
  const pvName = `pv-${volume.volumeId}`;

  await storage
    .createStorageClass({
      body: {
        metadata: { name: volume.storageClass },
        provisioner: volume.csi.driver,
        volumeBindingMode: 'WaitForFirstConsumer',
        reclaimPolicy: 'Retain',
      },
    })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  await core.createPersistentVolume({
    body: {
      metadata: { name: pvName },
      spec: {
        capacity: { storage: '10Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: volume.storageClass,
        claimRef: { namespace, name: pvcName },
        csi: volume.csi,
        ...(volume.nodeAffinity ? { nodeAffinity: volume.nodeAffinity } : {}),
      },
    },
  });

  const others = lab.nodes.filter((n) => n.name !== home.name).map((n) => n.name);
  const cordon = (unschedulable: boolean) =>
    Promise.all(others.map((n) => core.patchNode({ name: n, body: { spec: { unschedulable } } }, merge)));
  await cordon(true);
  try {
    await apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name },
        spec: {
          serviceName: name,
          replicas: 1,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              terminationGracePeriodSeconds: 30,
              ...(options.toleratesOutOfService
                ? { tolerations: [{ operator: 'Exists', effect: 'NoExecute' }] }
                : {}),
              containers: [
                {
                  name: 'postgres',
                  image: 'postgres:17',
                  volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
                },
              ],
            },
          },
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: {
                accessModes: ['ReadWriteOnce'],
                storageClassName: volume.storageClass,
                resources: { requests: { storage: '10Gi' } },
              },
            },
          ],
        },
      },
    });
    await waitForPod(
      lab,
      `${name}-0`,
      (p) => p.spec?.nodeName === home.name,
      `${name}-0 scheduled to ${home.name}`,
    );
  } finally {
    await cordon(false);
  }
  await waitForPod(
    lab,
    `${name}-0`,
    (p) => p.status?.phase === 'Running',
    `${name}-0 Running on ${home.name}`,
  );
  return {
    name,
    namespace,
    podName: `${name}-0`,
    pvcName,
    pvName,
    storage: options.storage ?? 'ebs',
    volumeId: volume.volumeId,
  };
}

/** A volume to put behind the app's claim. */
interface AppVolume {
  readonly volumeId: string;
  readonly storageClass: string;
  readonly csi: V1CSIPersistentVolumeSource;
  readonly nodeAffinity?: V1VolumeNodeAffinity;
}

/** An EBS volume in the emulator, in the node's zone (a zonal disk: the PV is pinned to the zone). */
async function ebsVolume(lab: Lab, zone: string): Promise<AppVolume> {
  const volumeId = await lab.createVolume({ zone, sizeGiB: 10 });
  return {
    volumeId,
    storageClass: LAB_STORAGE_CLASS,
    csi: { driver: lab.csiDriver, volumeHandle: volumeId, fsType: 'ext4' },
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: lab.volumeTopologyKey, operator: 'In', values: [zone] }] },
        ],
      },
    },
  };
}

/** An RBD image in the lab's Ceph, with ceph-csi's volume handle and attributes (no topology). */
async function rbdVolume(lab: Lab): Promise<AppVolume> {
  const ceph = lab.ceph;
  if (!ceph) throw new Error('lab: an RBD volume needs a lab started with { ceph: true }');
  const uuid = randomUUID();
  const image = `csi-vol-${uuid}`;
  await ceph.createImage(image);
  return {
    volumeId: image,
    storageClass: LAB_RBD_STORAGE_CLASS,
    csi: {
      driver: RBD_CSI_DRIVER,
      // ceph-csi's handle: version, cluster id length and id, pool id, image uuid.
      volumeHandle: `0001-0024-${ceph.fsid}-0000000000000001-${uuid}`,
      fsType: 'ext4',
      volumeAttributes: {
        clusterID: ceph.fsid,
        pool: ceph.pool,
        imageName: image,
        imageFeatures: 'layering',
      },
    },
  };
}

/** Waits for pod `name` in default to satisfy `ok`; returns it. */
export function waitForPod(
  lab: Lab,
  name: string,
  ok: (p: V1Pod) => boolean,
  what: string,
  timeoutMs = 120_000,
): Promise<V1Pod> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  let last = 'nothing yet';
  return eventually(
    what,
    async () => {
      const pod = await core.readNamespacedPod({ name, namespace: 'default' });
      last = `${pod.spec?.nodeName ?? 'unscheduled'} ${pod.status?.phase} deleting=${Boolean(pod.metadata?.deletionTimestamp)}`;
      return ok(pod) ? pod : undefined;
    },
    { timeoutMs, lastSeen: () => last },
  );
}

/** The VolumeAttachments of a PV, by node. */
export async function attachmentsOf(lab: Lab, pvName: string): Promise<Map<string, V1VolumeAttachment>> {
  const storage = lab.kubeConfig.makeApiClient(StorageV1Api);
  const list = await storage.listVolumeAttachment();
  return new Map(
    list.items
      .filter((va) => va.spec.source.persistentVolumeName === pvName)
      .map((va) => [va.spec.nodeName, va]),
  );
}
