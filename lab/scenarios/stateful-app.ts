import {
  AppsV1Api,
  CoreV1Api,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1Pod,
  type V1VolumeAttachment,
} from '@kubernetes/client-node';
import { createVolume } from '../ec2-emulator.js';
import { eventually } from '../kube-wait.js';
import { LAB_CSI_DRIVER, type Lab } from '../lab.js';

export const LAB_STORAGE_CLASS = 'lab-ebs';

/** A StatefulSet with one replica and one RWO EBS-backed volume: the database of the incident. */
export interface StatefulApp {
  readonly name: string;
  readonly namespace: string;
  readonly podName: string;
  readonly pvcName: string;
  readonly pvName: string;
  readonly volumeId: string;
}

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Where the app runs and how its pod tolerates taints. */
export interface StatefulAppOptions {
  readonly name?: string;
  readonly onNode: string;
  /**
   * The pod tolerates the out-of-service taint for good (some operators' pods do): the taint never
   * evicts it, so it keeps its volume on a fenced node until someone deletes it.
   */
  readonly toleratesOutOfService?: boolean;
}

/**
 * Creates the StorageClass (WaitForFirstConsumer), an EBS volume in the emulator with its PV, and a
 * StatefulSet whose pod lands on `onNode` (the other nodes are cordoned until it is placed).
 */
export async function deployStatefulApp(lab: Lab, options: StatefulAppOptions): Promise<StatefulApp> {
  const name = options.name ?? 'db';
  const namespace = 'default';
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const apps = lab.kubeConfig.makeApiClient(AppsV1Api);
  const storage = lab.kubeConfig.makeApiClient(StorageV1Api);
  const home = lab.node(options.onNode);
  const volumeId = await createVolume(lab.ec2.client, { zone: home.zone, sizeGiB: 10, cluster: lab.cluster });
  const pvcName = `data-${name}-0`;
  const pvName = `pv-${volumeId}`;

  await storage
    .createStorageClass({
      body: {
        metadata: { name: LAB_STORAGE_CLASS },
        provisioner: LAB_CSI_DRIVER,
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
        storageClassName: LAB_STORAGE_CLASS,
        claimRef: { namespace, name: pvcName },
        csi: { driver: LAB_CSI_DRIVER, volumeHandle: volumeId, fsType: 'ext4' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: 'topology.kubernetes.io/zone', operator: 'In', values: [home.zone] },
                ],
              },
            ],
          },
        },
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
                ? { tolerations: [{ key: 'node.kubernetes.io/out-of-service', operator: 'Exists' }] }
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
                storageClassName: LAB_STORAGE_CLASS,
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
  return { name, namespace, podName: `${name}-0`, pvcName, pvName, volumeId };
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
