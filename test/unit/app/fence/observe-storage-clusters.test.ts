/**
 * Several Ceph clusters under one CSI driver name (SAFETY.md rule 1): a storage fencer told which
 * clusters it reaches (FENCER_CEPH_CLUSTER_ID) proves only their images. An image whose
 * PersistentVolume names another clusterID, or none, or a reported-in-use image whose handle encodes
 * another one, is marked as no fencer's, so the plan asks for the machine's power-off and its watch.
 */
import { describe, expect, it } from 'vitest';
import { cephCsiClusterOf } from '../../../../lib/adapters/ceph-rbd/cluster-id.js';
import { observe } from '../../../../lib/app/fence/observe.js';
import { isolationPlan } from '../../../../lib/domain/isolation.js';
import type { NodeView, PersistentVolumeView, VolumeAttachmentView } from '../../../../lib/ports/cluster.js';
import type { StorageFencer, StorageFenceTarget } from '../../../../lib/ports/storage-fencer.js';
import { oneNodeCluster, recordingCephFencer, storageOnlyDeps } from '../support/ports.js';

const READ_AT = '2026-11-29T10:05:00.000Z';
const RBD = 'rbd.csi.ceph.com';
const UUID = '6e696bba-064f-11ec-a251-0242ac110002';
/** A ceph-csi handle: version, the clusterID's length in hex, the clusterID, the pool id, the image uuid. */
const handleOf = (clusterId: string) =>
  `0001-${clusterId.length.toString(16).padStart(4, '0')}-${clusterId}-0000000000000002-${UUID}`;

const node: NodeView = {
  name: 'node-a',
  uid: 'uid-a',
  resourceVersion: '42',
  createdAt: '2026-11-29T09:00:00.000Z',
  addresses: [{ type: 'InternalIP', address: '10.0.1.23' }],
  ready: 'Unknown',
  lastHeartbeat: '2026-11-29T09:59:00.000Z',
  // Bare metal: no machine, so only the images say whether one is needed.
  providerId: undefined,
  unschedulable: false,
  labels: {},
  annotations: {},
  taints: [],
};

const attachment = (pv: string): VolumeAttachmentView => ({
  name: `csi-${pv}`,
  uid: `uid-${pv}`,
  nodeName: 'node-a',
  attacher: RBD,
  persistentVolumeName: pv,
  attached: true,
  finalizers: [],
  createdAt: '2026-11-29T09:10:00.000Z',
});

const volume = (name: string, clusterID?: string): PersistentVolumeView => ({
  name,
  driver: RBD,
  volumeHandle: handleOf(clusterID ?? 'unnamed'),
  accessModes: ['ReadWriteOnce'],
  zones: [],
  nodeBound: false,
  attributes: { pool: 'rbd', imageName: `csi-vol-${name}`, ...(clusterID ? { clusterID } : {}) },
});

/** A node-a with the given attachments and reported volumes, and a Ceph fencer reaching `served`. */
function world(options: {
  served: readonly string[] | null;
  volumes: readonly PersistentVolumeView[];
  attached: readonly string[];
  volumesInUse?: readonly string[];
}) {
  const verified: StorageFenceTarget[] = [];
  const pvReads: string[] = [];
  const theNode = { ...node, volumesInUse: options.volumesInUse ?? [] };
  const cluster = oneNodeCluster(
    theNode,
    READ_AT,
    { volumeAttachments: options.attached.map(attachment) },
    {
      getPersistentVolume: async (name) => {
        pvReads.push(name);
        return options.volumes.find((v) => v.name === name) ?? null;
      },
    },
  );
  const storage: StorageFencer = {
    ...recordingCephFencer(verified, READ_AT),
    storageClusters: options.served,
    storageClusterOf: cephCsiClusterOf,
  };
  const deps = storageOnlyDeps(cluster, storage, READ_AT);
  return { deps, verified, pvReads };
}
const options = { claimTtlSeconds: 300, withDisks: false, providerBudgetMs: 1000 };

describe('observing images on several Ceph clusters under one driver name', () => {
  it("proves by the blocklist only the served cluster's image: the other one needs the machine and its watch", async () => {
    const { deps, verified } = world({
      served: ['cluster-a'],
      volumes: [volume('pv-a', 'cluster-a'), volume('pv-b', 'cluster-b')],
      attached: ['pv-a', 'pv-b'],
    });

    const { observation } = await observe(deps, 'node-a', 'prod', options);

    const byPv = Object.fromEntries(
      observation.workload.volumeAttachments.map((va) => [va.persistentVolume, va.unservedCluster]),
    );
    expect(byPv).toEqual({ 'pv-a': undefined, 'pv-b': 'cluster-b' });
    expect(verified).toHaveLength(1);
    expect(isolationPlan(observation)).toEqual({ machine: true, storage: true, watch: true });
  });

  it('marks an image whose PersistentVolume names no cluster, or is gone, as on an unknown cluster', async () => {
    const noId = { ...volume('pv-x'), volumeHandle: 'not-a-ceph-csi-handle' };
    const { deps } = world({ served: ['cluster-a'], volumes: [noId], attached: ['pv-x', 'pv-gone'] });

    const { observation } = await observe(deps, 'node-a', 'prod', options);

    expect(observation.workload.volumeAttachments.map((va) => va.unservedCluster)).toEqual([
      'unknown',
      'unknown',
    ]);
    // No image is this fencer's: the storage cluster is not asked, the machine is the proof.
    expect(observation.storage).toBeNull();
    expect(isolationPlan(observation)).toEqual({ machine: true, storage: false, watch: true });
  });

  it("reads a reported-in-use image's cluster from its handle: another cluster's is no fencer's", async () => {
    const inUse = (id: string) => `kubernetes.io/csi/${RBD}^${handleOf(id)}`;
    const { deps } = world({
      served: ['rook-ceph'],
      volumes: [],
      attached: [],
      volumesInUse: [inUse('rook-ceph'), inUse('rook-ceph-external')],
    });

    const { observation } = await observe(deps, 'node-a', 'prod', options);

    expect(observation.workload.imagesInUse).toEqual([inUse('rook-ceph')]);
    expect(observation.workload.unservedImagesInUse).toEqual([inUse('rook-ceph-external')]);
    expect(isolationPlan(observation)).toEqual({ machine: true, storage: true, watch: true });
  });

  it('without FENCER_CEPH_CLUSTER_ID, every image of the driver is the fencer’s, and no PersistentVolume is read for it', async () => {
    const { deps, pvReads } = world({
      served: null,
      volumes: [volume('pv-a', 'cluster-a'), volume('pv-b', 'cluster-b')],
      attached: ['pv-a', 'pv-b'],
    });

    const { observation } = await observe(deps, 'node-a', 'prod', options);

    expect(observation.workload.volumeAttachments.map((va) => va.unservedCluster)).toEqual([
      undefined,
      undefined,
    ]);
    expect(pvReads).toEqual([]);
    expect(isolationPlan(observation)).toEqual({ machine: false, storage: true, watch: false });
  });
});
