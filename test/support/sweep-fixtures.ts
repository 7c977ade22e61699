/**
 * Objects the sweep e2e tests plant in a lab with the admin credentials: PVs, claims, pods and
 * VolumeAttachments of a test CSI driver that no attacher serves, so their state stays as planted.
 */
import {
  CoreV1Api,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1VolumeAttachmentStatus,
} from '@kubernetes/client-node';
import type { Lab } from '../../lab/lab.js';

/** A CSI driver no attacher in the lab serves. */
export const TEST_DRIVER = 'sweep-test.csi.kube-fencer.io';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const core = (lab: Lab) => lab.kubeConfig.makeApiClient(CoreV1Api);
const storage = (lab: Lab) => lab.kubeConfig.makeApiClient(StorageV1Api);

export async function createPv(
  lab: Lab,
  pv: {
    readonly name: string;
    readonly volumeHandle: string;
    readonly driver?: string;
    readonly zone?: string;
    readonly claim?: { readonly namespace: string; readonly name: string };
  },
): Promise<void> {
  await core(lab).createPersistentVolume({
    body: {
      metadata: { name: pv.name },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: '',
        csi: { driver: pv.driver ?? TEST_DRIVER, volumeHandle: pv.volumeHandle },
        ...(pv.claim ? { claimRef: { namespace: pv.claim.namespace, name: pv.claim.name } } : {}),
        ...(pv.zone
          ? {
              nodeAffinity: {
                required: {
                  nodeSelectorTerms: [
                    {
                      matchExpressions: [
                        { key: 'topology.kubernetes.io/zone', operator: 'In', values: [pv.zone] },
                      ],
                    },
                  ],
                },
              },
            }
          : {}),
      },
    },
  });
}

/** A VolumeAttachment of `attacher` (default: the test driver), with the status planted as given. */
export async function createVa(
  lab: Lab,
  va: {
    readonly name: string;
    readonly nodeName: string;
    readonly pvName: string;
    readonly attacher?: string;
    readonly csiNodeId?: string;
    readonly finalizers?: string[];
    readonly status?: V1VolumeAttachmentStatus;
  },
): Promise<void> {
  await storage(lab).createVolumeAttachment({
    body: {
      metadata: {
        name: va.name,
        ...(va.csiNodeId ? { annotations: { 'csi.alpha.kubernetes.io/node-id': va.csiNodeId } } : {}),
        ...(va.finalizers ? { finalizers: va.finalizers } : {}),
      },
      spec: {
        attacher: va.attacher ?? TEST_DRIVER,
        nodeName: va.nodeName,
        source: { persistentVolumeName: va.pvName },
      },
    },
  });
  if (va.status) {
    await storage(lab).patchVolumeAttachmentStatus({ name: va.name, body: { status: va.status } }, merge);
  }
}

/** A claim pre-bound to `pvName` and a pod that mounts it (left unscheduled with `schedulerName`). */
export async function createClaimAndPod(
  lab: Lab,
  input: { readonly name: string; readonly pvName: string; readonly schedulerName?: string },
): Promise<void> {
  await core(lab).createNamespacedPersistentVolumeClaim({
    namespace: 'default',
    body: {
      metadata: { name: input.name },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: '',
        volumeName: input.pvName,
        resources: { requests: { storage: '1Gi' } },
      },
    },
  });
  await core(lab).createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name: input.name },
      spec: {
        ...(input.schedulerName ? { schedulerName: input.schedulerName } : {}),
        containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: input.name } }],
      },
    },
  });
}

/** Adds `driver` with an attach limit to a node's CSINode (as a kubelet does on plugin registration). */
export async function addCsiDriver(lab: Lab, node: string, driver: string, count: number): Promise<void> {
  const api = storage(lab);
  const csiNode = await api.readCSINode({ name: node });
  csiNode.spec.drivers.push({ name: driver, nodeID: node, allocatable: { count } });
  await api.replaceCSINode({ name: node, body: csiNode });
}

export async function deleteVa(lab: Lab, name: string): Promise<void> {
  await storage(lab).deleteVolumeAttachment({ name });
}

export async function vaExists(lab: Lab, name: string): Promise<boolean> {
  try {
    await storage(lab).readVolumeAttachment({ name });
    return true;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return false;
    throw error;
  }
}
