/**
 * The bulk objects of the scale benchmark, as both seeding paths write them (bench/sweep-scale/seed.ts):
 * through the API (metadata and spec created, status written as its controller would) or straight
 * into etcd (bench/sweep-scale/seed-etcd.ts: the whole object at once, as the API would hold it
 * after those writes, claims already bound).
 */
import { randomUUID } from 'node:crypto';
import type { SeedObject } from '../../lab/etcd-seed.js';

export const BULK_DRIVER = 'bulk.csi.kube-fencer.io';
export const NAMESPACE = 'bench';
/** Every seeded object carries this label, so that a count of the served objects selects them alone. */
export const BULK_LABEL = 'kube-fencer.io/bench';
const labels = { [BULK_LABEL]: 'bulk' };

const pad = (i: number) => String(i).padStart(6, '0');
export const nodeName = (i: number) => `bulk-${pad(i)}`;
export const goneNodeName = (i: number) => `bulk-gone-${pad(i)}`;
export const pvName = (i: number) => `bulk-pv-${pad(i)}`;
export const claimName = (i: number) => `data-${pad(i)}`;
export const podName = (i: number) => `app-${pad(i)}`;
export const vaName = (i: number) => `bulk-va-${pad(i)}`;

/** A node's Ready condition as its kubelet reports it; `since` is the last transition. */
export function readyCondition(status: 'True' | 'False', since: Date, now = new Date()) {
  return {
    type: 'Ready',
    status,
    reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady',
    message: 'bench',
    lastHeartbeatTime: now.toISOString(),
    lastTransitionTime: since.toISOString(),
  };
}

export function bulkNode(name: string, zone: string, instanceId: string): SeedObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { ...labels, 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone },
    },
    spec: { providerID: `aws:///${zone}/${instanceId}` },
  };
}

/** A claim's identity, known before it exists so that its PV can name it (claimRef) when seeded at once. */
export interface ClaimRef {
  readonly name: string;
  readonly uid?: string;
}

export function bulkPersistentVolume(
  name: string,
  handle: string,
  zone: string,
  claim?: ClaimRef,
): SeedObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: '',
      ...(claim
        ? { claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: NAMESPACE, ...claim } }
        : {}),
      csi: { driver: BULK_DRIVER, volumeHandle: handle },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] },
          ],
        },
      },
    },
  };
}

export function bulkClaim(name: string, volumeName: string): SeedObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NAMESPACE, labels },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName: '',
      volumeName,
      resources: { requests: { storage: '1Gi' } },
    },
  };
}

export function bulkPod(name: string, node: string, claim: string): SeedObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NAMESPACE, labels },
    spec: {
      nodeName: node,
      containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }],
    },
  };
}

export function bulkVolumeAttachment(name: string, node: string, pv: string, instanceId: string): SeedObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name, labels, annotations: { 'csi.alpha.kubernetes.io/node-id': instanceId } },
    spec: { attacher: BULK_DRIVER, nodeName: node, source: { persistentVolumeName: pv } },
  };
}

/**
 * The settled forms, for seeding straight into etcd: each object as the API would hold it once its
 * kubelet, attacher and PV controller had written their part (a Ready node, an attached attachment, a
 * Running pod, a claim and PV bound to each other by uid, as the PV controller binds them).
 */
export const settled = {
  node: (node: SeedObject, now: Date): SeedObject => ({
    ...node,
    status: { conditions: [readyCondition('True', now, now)] },
  }),
  volumeAttachment: (va: SeedObject): SeedObject => ({ ...va, status: { attached: true } }),
  pod: (pod: SeedObject): SeedObject => ({ ...pod, status: { phase: 'Running' } }),
  /** A claim and its PV bound both ways; `pv` must have been built with `claimRef` naming the claim and `uid`. */
  boundClaim: (claim: SeedObject, uid: string): SeedObject => ({
    ...claim,
    metadata: {
      ...claim.metadata,
      uid,
      annotations: {
        'pv.kubernetes.io/bind-completed': 'yes',
        'pv.kubernetes.io/bound-by-controller': 'yes',
      },
    },
    status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } },
  }),
  boundVolume: (pv: SeedObject): SeedObject => ({ ...pv, status: { phase: 'Bound' } }),
  availableVolume: (pv: SeedObject): SeedObject => ({ ...pv, status: { phase: 'Available' } }),
  newUid: (): string => randomUUID(),
};
