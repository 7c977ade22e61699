/**
 * Ceph's witness reads every image of the node, those the kubelet reports in use included (SAFETY.md
 * rule 1): a node tainted by hand has no attachments left, and only its `volumesInUse` names its
 * images. Each is found by its driver and handle among the PersistentVolumes and read by the witness;
 * one that no PersistentVolume names any more is reported `unwitnessed`, and a bare-metal node with one
 * is refused WitnessRequired.
 */
import { describe, expect, it } from 'vitest';
import { observe } from '../../../../lib/app/fence/observe.js';
import { decide } from '../../../../lib/domain/decide.js';
import type { NodeView, PersistentVolumeView, VolumeAttachmentView } from '../../../../lib/ports/cluster.js';
import type {
  StorageFencer,
  StorageFenceTarget,
  StorageImageRef,
} from '../../../../lib/ports/storage-fencer.js';
import { aRequest, freshHistory } from '../../domain/support/fixtures.js';
import { oneNodeCluster, recordingCephFencer, storageOnlyDeps } from '../support/ports.js';

const READ_AT = '2026-12-03T10:05:00.000Z';
const RBD = 'rbd.csi.ceph.com';
const inUse = (handle: string) => `kubernetes.io/csi/${RBD}^${handle}`;

const node: NodeView & { volumesInUse: string[] } = {
  name: 'node-a',
  uid: 'uid-a',
  resourceVersion: '42',
  createdAt: '2026-12-03T09:00:00.000Z',
  addresses: [{ type: 'InternalIP', address: '10.0.1.23' }],
  ready: 'Unknown',
  lastHeartbeat: '2026-12-03T09:59:00.000Z',
  providerId: undefined,
  unschedulable: false,
  labels: {},
  annotations: {},
  taints: [],
  volumesInUse: [],
};

const pv = (name: string, handle: string): PersistentVolumeView => ({
  name,
  driver: RBD,
  volumeHandle: handle,
  accessModes: ['ReadWriteOnce'],
  zones: [],
  nodeBound: false,
  attributes: { pool: 'rbd', imageName: `csi-vol-${name}` },
});

/** The node's attachment of an RBD image, by the PersistentVolume `pv` (none: an attachment of no PV). */
const attachment = (name: string, pv?: string): VolumeAttachmentView => ({
  name,
  uid: `uid-${name}`,
  nodeName: 'node-a',
  attacher: RBD,
  ...(pv ? { persistentVolumeName: pv } : {}),
  attached: true,
  finalizers: [],
  createdAt: '2026-12-03T09:00:00.000Z',
});

function world(
  volumesInUse: readonly string[],
  volumes: readonly PersistentVolumeView[],
  volumeAttachments: readonly VolumeAttachmentView[] = [],
) {
  const asked: StorageImageRef[][] = [];
  const lists: number[] = [];
  const reads: string[] = [];
  const cluster = oneNodeCluster(
    { ...node, volumesInUse: [...volumesInUse] },
    READ_AT,
    { volumeAttachments },
    {
      getPersistentVolume: async (name) => {
        reads.push(name);
        return volumes.find((v) => v.name === name) ?? null;
      },
      listPersistentVolumes: async () => {
        lists.push(1);
        return volumes;
      },
    },
  );
  const verified: StorageFenceTarget[] = [];
  const storage: StorageFencer = {
    ...recordingCephFencer(verified, READ_AT),
    witness: {
      imageOf: (a) => (a.pool && a.imageName ? { pool: a.pool, image: a.imageName } : null),
      holders: async (images) => {
        asked.push([...images]);
        return {
          source: 'rbd status as client.witness',
          observedAt: READ_AT,
          images: images.map((i) => `${i.pool}/${i.image}`),
          holders: images.map((i) => ({
            image: `${i.pool}/${i.image}`,
            address: '10.20.0.7',
            client: 'client.9',
          })),
        };
      },
    },
  };
  const deps = storageOnlyDeps(cluster, storage, READ_AT);
  return { deps, asked, lists, reads, verified };
}
const options = { claimTtlSeconds: 300, withDisks: false, providerBudgetMs: 1000 };

describe("the witness and the kubelet's volumesInUse", () => {
  it('reads an image only the kubelet reports, by its PersistentVolume, and fences the address holding it', async () => {
    const { deps, asked, verified } = world([inUse('h-1')], [pv('pv-1', 'h-1'), pv('pv-2', 'h-2')]);

    const { observation } = await observe(deps, 'node-a', 'prod', options);

    expect(asked).toEqual([[{ pool: 'rbd', image: 'csi-vol-pv-1' }]]);
    expect(observation.storage?.unwitnessed).toBeUndefined();
    // The holder's address, which the Node never reports, joins what is fenced.
    expect(verified.at(-1)?.witnessed).toEqual(['10.20.0.7']);
  });

  it('lists PersistentVolumes only when an image in use is not an attachment’s', async () => {
    const { deps, lists } = world([], [pv('pv-1', 'h-1')]);
    await observe(deps, 'node-a', 'prod', options);
    expect(lists).toEqual([]);
  });

  it('reports an image in use that no PersistentVolume names as unwitnessed; the bare-metal node is refused', async () => {
    const { deps } = world([inUse('h-1'), inUse('h-gone')], [pv('pv-1', 'h-1')]);

    const { observation } = await observe(deps, 'node-a', 'prod', options);

    expect(observation.storage?.unwitnessed).toEqual([inUse('h-gone')]);
    const decision = decide(observation, aRequest({ node: 'node-a', dryRun: true }), freshHistory());
    expect(decision).toMatchObject({ phase: 'Refused', reason: 'WitnessRequired', action: null });
    expect(decision.evidence.join('\n')).toContain(`the witness could not read ${inUse('h-gone')}`);
  });

  it('reads the images of the node’s attachments by their PersistentVolumes, and no list of them all', async () => {
    const { deps, asked, lists, reads } = world(
      [],
      [pv('pv-1', 'h-1'), pv('pv-2', 'h-2')],
      [attachment('csi-1', 'pv-1'), attachment('csi-x')],
    );

    const { observation } = await observe(deps, 'node-a', 'prod', options);

    expect(asked).toEqual([[{ pool: 'rbd', image: 'csi-vol-pv-1' }]]);
    // An attachment that names no PersistentVolume has nothing to read; no image in use is left over.
    expect(reads).toEqual(['pv-1']);
    expect(lists).toEqual([]);
    expect(observation.storage?.unwitnessed).toBeUndefined();
    expect(observation.storage?.witnessed).toEqual(['10.20.0.7']);
  });
});
