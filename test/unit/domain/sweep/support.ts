/** Builders for sweep snapshots: plain data, a fixed "now", defaults that describe a healthy cluster. */
import type { DiskState } from '../../../../lib/domain/disk.js';
import type {
  CrossCheck,
  SweepClaim,
  SweepNode,
  SweepPersistentVolume,
  SweepPod,
  SweepSnapshot,
  SweepVolumeAttachment,
} from '../../../../lib/domain/sweep/index.js';
import {
  DEFAULT_SWEEP_THRESHOLDS,
  indexSnapshot,
  type SweepIndex,
} from '../../../../lib/domain/sweep/index.js';

export const NOW = '2026-03-01T12:00:00.000Z';
/** `seconds` before NOW, ISO 8601. */
export const ago = (seconds: number): string => new Date(Date.parse(NOW) - seconds * 1000).toISOString();

export const aNode = (name: string, over: Partial<SweepNode> = {}): SweepNode => ({
  name,
  ready: 'True',
  readySince: ago(86_400),
  providerId: `aws:///us-east-1a/i-0${name
    .replace(/[^a-f0-9]/g, 'a')
    .padEnd(16, '0')
    .slice(0, 16)}`,
  unschedulable: false,
  labels: { 'topology.kubernetes.io/zone': 'us-east-1a' },
  annotations: {},
  taints: [],
  ...over,
});

export const aVa = (name: string, over: Partial<SweepVolumeAttachment> = {}): SweepVolumeAttachment => ({
  name,
  uid: `uid-${name}`,
  nodeName: 'node-a',
  attacher: 'ebs.csi.aws.com',
  persistentVolumeName: 'pv-1',
  attached: true,
  finalizers: ['external-attacher/ebs-csi-aws-com'],
  createdAt: ago(3600),
  ...over,
});

export const aPv = (name: string, over: Partial<SweepPersistentVolume> = {}): SweepPersistentVolume => ({
  name,
  driver: 'ebs.csi.aws.com',
  volumeHandle: `vol-${name}`,
  accessModes: ['ReadWriteOnce'],
  zones: ['us-east-1a'],
  nodeBound: false,
  ...over,
});

export const aPod = (name: string, over: Partial<SweepPod> = {}): SweepPod => ({
  namespace: 'default',
  name,
  uid: `uid-${name}`,
  phase: 'Pending',
  claimNames: [`data-${name}`],
  ...over,
});

export const aClaim = (name: string, volumeName: string): SweepClaim => ({
  namespace: 'default',
  name,
  volumeName,
  phase: 'Bound',
});

/** An index of a snapshot at NOW: two Ready nodes, one attached volume, unless overridden. */
export function world(over: Partial<SweepSnapshot> = {}): SweepIndex {
  return indexSnapshot({
    observedAt: NOW,
    maxInFlight: 1,
    nodes: [aNode('node-a'), aNode('node-b')],
    volumeAttachments: [aVa('va-1')],
    persistentVolumes: [aPv('pv-1')],
    pendingPods: [],
    claims: [],
    storageClasses: [],
    csiNodes: [],
    podsOnTaintedNodes: [],
    fencingsInFlight: [],
    thresholds: DEFAULT_SWEEP_THRESHOLDS,
    ...over,
  });
}

/** A cross-check with these instance states and disks. */
export const crossCheck = (instances: Record<string, string>, disks: DiskState[] = []): CrossCheck => ({
  instances: Object.entries(instances).map(([instanceId, state]) => ({
    instanceId,
    power: { ok: true, value: { instanceId, state: state as never, providerState: state, observedAt: NOW } },
  })),
  disks: disks.map((d) => ({ volumeId: d.volumeId, disk: { ok: true, value: d } })),
  unresolved: [],
});

export const disk = (volumeId: string, attachedTo: string[] = []): DiskState => ({
  volumeId,
  exists: true,
  providerState: attachedTo.length ? 'in-use' : 'available',
  attachments: attachedTo.map((instanceId) => ({ instanceId, state: 'attached' })),
  observedAt: NOW,
});
