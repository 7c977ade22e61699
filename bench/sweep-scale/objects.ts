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
 * The fields of `value` in server-side apply's fieldsV1 form (`f:<field>` per map key, `k:{"type":…}`
 * per condition): what the API server records in managedFields for the writer of those fields.
 */
function fieldsV1(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'object' && v !== null && 'type' in v)) return {};
    return Object.fromEntries(
      value.map((v: { type: unknown }) => [
        `k:${JSON.stringify({ type: v.type })}`,
        { '.': {}, ...fieldsV1(v) },
      ]),
    );
  }
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [`f:${k}`, fieldsV1(v)]));
}

/**
 * The object with the managedFields the API server would hold for it, created by `creator` and its
 * status written by `statusWriter`: objects seeded into etcd carry them as real ones do, so that a
 * list reads as many bytes per object as from a real cluster (managedFields are about half of a
 * small object's JSON).
 */
function managed(object: SeedObject, creator: string, statusWriter: string, time: Date): SeedObject {
  const { status, metadata, apiVersion, kind: _kind, ...rest } = object;
  const { name: _name, namespace: _namespace, uid: _uid, ...ownMetadata } = metadata;
  const entry = (manager: string, fields: unknown, subresource?: string) => ({
    manager,
    operation: 'Update',
    apiVersion,
    time: time.toISOString(),
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsV1(fields),
    ...(subresource ? { subresource } : {}),
  });
  return {
    ...object,
    metadata: {
      ...metadata,
      managedFields: [
        entry(creator, { metadata: ownMetadata, ...rest }),
        ...(status ? [entry(statusWriter, { status }, 'status')] : []),
      ],
    },
  };
}

/**
 * The settled forms, for seeding straight into etcd: each object as the API would hold it once its
 * kubelet, attacher and PV controller had written their part (a Ready node, an attached attachment, a
 * Running pod, a claim and PV bound to each other by uid, as the PV controller binds them), with the
 * managedFields of those writers.
 */
export const settled = {
  node: (node: SeedObject, now: Date): SeedObject =>
    managed(
      { ...node, status: { conditions: [readyCondition('True', now, now)] } },
      'kubelet',
      'kubelet',
      now,
    ),
  volumeAttachment: (va: SeedObject, now = new Date()): SeedObject =>
    managed({ ...va, status: { attached: true } }, 'kube-controller-manager', 'csi-attacher', now),
  pod: (pod: SeedObject, now = new Date()): SeedObject =>
    managed({ ...pod, status: { phase: 'Running' } }, 'kube-controller-manager', 'kubelet', now),
  /** A claim and its PV bound both ways; `pv` must have been built with `claimRef` naming the claim and `uid`. */
  boundClaim: (claim: SeedObject, uid: string, now = new Date()): SeedObject =>
    managed(
      {
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
      },
      'kube-controller-manager',
      'kube-controller-manager',
      now,
    ),
  boundVolume: (pv: SeedObject, now = new Date()): SeedObject =>
    managed({ ...pv, status: { phase: 'Bound' } }, 'csi-provisioner', 'kube-controller-manager', now),
  availableVolume: (pv: SeedObject, now = new Date()): SeedObject =>
    managed({ ...pv, status: { phase: 'Available' } }, 'csi-provisioner', 'kube-controller-manager', now),
  newUid: (): string => randomUUID(),
};
