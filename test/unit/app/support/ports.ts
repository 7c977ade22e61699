/**
 * Port answers the app's unit tests share: a cluster that holds one Node and answers an observation's
 * reads, a machine as the provider's one read describes it, and a Ceph storage fencer that records what
 * it was asked to verify.
 */
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import type { PowerEvidence } from '../../../../lib/domain/instance.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type { Cluster, NodeView, PodView, VolumeAttachmentView } from '../../../../lib/ports/cluster.js';
import type { InstanceInspection } from '../../../../lib/ports/compute-fencer.js';
import type { StorageFencer, StorageFenceTarget } from '../../../../lib/ports/storage-fencer.js';

/**
 * The reads one observation makes of a cluster that holds only `node` (no Lease, no CSINode, no fencing
 * in flight), served at `readAt`; `more` adds or replaces any.
 */
export const oneNodeCluster = (
  node: NodeView,
  readAt: string,
  workload: { pods?: readonly PodView[]; volumeAttachments?: readonly VolumeAttachmentView[] } = {},
  more: Partial<Cluster> = {},
): Partial<Cluster> => ({
  getNode: async () => node,
  getNodeLease: async () => ({ lease: null, servedAt: readAt }),
  getCSINode: async () => null,
  listNodes: async () => [node],
  serverVersion: async () => ({ major: 1, minor: 36, gitVersion: 'v1.36.3' }),
  listFencingClaims: async () => ({ claims: [], maxInFlight: 1, serverTime: readAt }),
  listPodsOnNode: async () => workload.pods ?? [],
  listVolumeAttachments: async () => workload.volumeAttachments ?? [],
  ...more,
});

/** An instance owned by the lab cluster, running unless `power` says otherwise, at `privateIp`. */
export const inspectionOf = (
  instanceId: string,
  observedAt: string,
  power: Partial<PowerEvidence> = {},
  privateIp = '10.0.0.5',
): InstanceInspection => ({
  ownership: { owned: true, evidence: 'tag kubernetes.io/cluster/lab=owned' },
  power: { instanceId, state: 'running', providerState: 'running', observedAt, ...power },
  identity: { instanceId, privateIps: [privateIp], hostnames: [] },
});

/**
 * A storage fencer for `rbd.csi.ceph.com` whose blocklist holds nothing; each verify is recorded. Its
 * one storage daemon, mon.a, is at 10.99.0.1.
 */
export const recordingCephFencer = (verified: StorageFenceTarget[], observedAt: string): StorageFencer =>
  ({
    storage: 'ceph-rbd',
    fencesVolume: (volume: { driver?: string }) => volume.driver === 'rbd.csi.ceph.com',
    verify: async (target: StorageFenceTarget) => {
      verified.push(target);
      return {
        node: target.node,
        observedAt,
        // As the Ceph fencer plans: each InternalIP as a single-host range, then the declared ones.
        expected: [
          ...target.addresses.map((ip) => ({
            kind: 'range' as const,
            entry: `${ip}/${ip.includes(':') ? 128 : 32}`,
            source: `InternalIP ${ip}`,
          })),
          ...(target.declared ?? []).map((entry) => ({ kind: 'range' as const, entry, source: 'declared' })),
        ],
        found: [],
        missing: [],
        related: [],
        confirmed: false,
      };
    },
    storageDaemons: async () => ({ source: 'test', daemons: [{ name: 'mon.a', addresses: ['10.99.0.1'] }] }),
  }) as unknown as StorageFencer;

/** Dependencies for a bare-metal node's observation: `cluster`, no compute provider, `storage`, a fixed clock. */
export const storageOnlyDeps = (
  cluster: Partial<Cluster>,
  storage: StorageFencer,
  readAt: string,
): FencerDeps =>
  ({
    cluster: cluster as Cluster,
    compute: { forProviderId: () => null },
    storage: [storage],
    clock: { now: () => new Date(readAt) },
    log: { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} },
    metrics: new InMemoryMetrics(),
  }) as unknown as FencerDeps;
