/** In-memory Cluster and ComputeFencer for the sweep use case: only what a sweep reads and writes. */
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import type { DiskState } from '../../../../lib/domain/disk.js';
import type { InstanceRef, PowerEvidence } from '../../../../lib/domain/instance.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type {
  Cluster,
  NodeView,
  PersistentVolumeView,
  VolumeAttachmentView,
} from '../../../../lib/ports/cluster.js';
import type { ComputeFencer } from '../../../../lib/ports/compute-fencer.js';

export const NOW = new Date('2026-03-01T12:00:00.000Z');

export const node = (name: string, over: Partial<NodeView> = {}): NodeView => ({
  name,
  uid: `uid-${name}`,
  resourceVersion: '1',
  createdAt: '2026-01-01T00:00:00Z',
  addresses: [],
  ready: 'True',
  readySince: '2026-01-01T00:00:00Z',
  providerId: `aws:///us-east-1a/i-0${'a'.repeat(16)}`,
  unschedulable: false,
  labels: { 'topology.kubernetes.io/zone': 'us-east-1a' },
  annotations: {},
  taints: [],
  ...over,
});

export const va = (name: string, over: Partial<VolumeAttachmentView> = {}): VolumeAttachmentView => ({
  name,
  uid: `uid-${name}`,
  nodeName: 'node-a',
  attacher: 'ebs.csi.aws.com',
  persistentVolumeName: 'pv-1',
  attached: true,
  finalizers: [],
  createdAt: '2026-03-01T11:00:00Z',
  ...over,
});

export const pv = (name: string, volumeHandle: string): PersistentVolumeView => ({
  name,
  driver: 'ebs.csi.aws.com',
  volumeHandle,
  accessModes: ['ReadWriteOnce'],
  zones: ['us-east-1a'],
  nodeBound: false,
});

export interface World {
  nodes: NodeView[];
  vas: VolumeAttachmentView[];
  pvs: PersistentVolumeView[];
  power: Record<string, PowerEvidence['state']>;
  disks: Record<string, string[]>;
  deleted: string[];
  providerCalls: { instances: number; disks: number };
  /** Called right before the re-check reads: lets a test change the world mid-sweep. */
  beforeRecheck?: () => void;
  /**
   * When set, every provider answer is this error (a stand-in for throttling: the lab's EC2 fault
   * injector covers the real protocol in the e2e sweep test).
   */
  providerFault?: string;
  /** Disks the provider says do not exist, in the region it asks (`us-east-1` unless set). */
  absentDisks?: string[];
  region?: string;
}

const fault = (name: string) => ({ ok: false as const, error: { name, message: `${name} (injected)` } });

export function fakeDeps(world: World): FencerDeps & { metrics: InMemoryMetrics } {
  const cluster: Partial<Cluster> = {
    listNodes: async () => world.nodes,
    listVolumeAttachments: async () => world.vas,
    listPersistentVolumes: async () => world.pvs,
    listPods: async () => [],
    listStorageClasses: async () => [],
    listFencingClaims: async () => ({ claims: [], maxInFlight: 1, serverTime: NOW.toISOString() }),
    listPodsOnNode: async () => [],
    listPersistentVolumeClaims: async () => [],
    listCSINodes: async () => [],
    getNode: async (name) => {
      world.beforeRecheck?.();
      return world.nodes.find((n) => n.name === name) ?? null;
    },
    getVolumeAttachment: async (name) => world.vas.find((v) => v.name === name) ?? null,
    deleteVolumeAttachment: async ({ name }) => {
      world.deleted.push(name);
      world.vas = world.vas.filter((v) => v.name !== name);
      return 'deleted';
    },
    recordNodeEvent: async () => {},
  };
  const ec2: Partial<ComputeFencer> = {
    provider: 'aws',
    parseProviderId: (id) => ({ provider: 'aws', instanceId: id?.replace(/^aws:\/\/\/[^/]*\//, '') ?? '' }),
    observePower: async () => {
      throw new Error('the sweep must batch');
    },
    observePowerMany: async (refs: readonly InstanceRef[]) => {
      world.providerCalls.instances++;
      return {
        calls: 1,
        results: new Map(
          refs.map((r) => [
            r.instanceId,
            world.providerFault
              ? fault(world.providerFault)
              : {
                  ok: true as const,
                  value: {
                    instanceId: r.instanceId,
                    state: world.power[r.instanceId] ?? 'not-found',
                    observedAt: NOW.toISOString(),
                  },
                },
          ]),
        ),
      };
    },
    holdsZone: (zone: string) => zone.startsWith(world.region ?? 'us-east-1'),
    describeDisks: async (ids: readonly string[]) => {
      world.providerCalls.disks++;
      const disk = (id: string): DiskState => ({
        volumeId: id,
        exists: !(world.absentDisks ?? []).includes(id),
        region: world.region ?? 'us-east-1',
        providerState: world.disks[id]?.length ? 'in-use' : 'available',
        attachments: (world.disks[id] ?? []).map((instanceId) => ({ instanceId, state: 'attached' })),
        observedAt: NOW.toISOString(),
      });
      const answer = (id: string) =>
        world.providerFault ? fault(world.providerFault) : { ok: true as const, value: disk(id) };
      return { calls: 1, results: new Map(ids.map((id) => [id, answer(id)])) };
    },
  };
  return {
    cluster: cluster as Cluster,
    compute: { forProviderId: (id) => (/^(aws:\/\/|i-)/.test(id) ? (ec2 as ComputeFencer) : null) },
    clock: { now: () => NOW },
    log: { info() {}, warn() {}, error() {} },
    metrics: new InMemoryMetrics(),
  };
}
