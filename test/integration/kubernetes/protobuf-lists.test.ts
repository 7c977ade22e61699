/**
 * The VolumeAttachment and PV lists are read in Kubernetes' protobuf encoding, decoded with a schema
 * that declares only the fields the views keep. Against the lab's real API server, every view read
 * that way must equal the view mapped from the same objects read as JSON: a wrong field number, a
 * time, an inlined volume source or a page boundary shows here as a difference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../lab/lab.js';
import { ApiClient, ApiStatusError } from '../../../lib/adapters/kubernetes/api/api-client.js';
import { PROTOBUF_CONTENT_TYPE } from '../../../lib/adapters/kubernetes/api/protobuf.js';
import { KubeCluster } from '../../../lib/adapters/kubernetes/kube-cluster.js';
import { RawLister } from '../../../lib/adapters/kubernetes/raw-list.js';
import {
  toPersistentVolumeView,
  toVolumeAttachmentView,
} from '../../../lib/adapters/kubernetes/storage-views.js';

const VAS = '/apis/storage.k8s.io/v1/volumeattachments';
const PVS = '/api/v1/persistentvolumes';
const ATTACHER = 'protobuf.test.example.com';
const HOLD = 'protobuf.test.example.com/hold';
const MERGE = 'application/merge-patch+json';

let lab: Lab;
let api: ApiClient;

const zoneTerm = (key: string, zone: string) => ({
  required: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator: 'In', values: [zone] }] }] },
});
const pv = (name: string, spec: Record<string, unknown>) => ({
  metadata: { name, labels: { test: 'protobuf' } },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...spec },
});
const va = (name: string, pvName: string, annotations: Record<string, string> = {}) => ({
  metadata: { name, annotations, finalizers: [HOLD] },
  spec: { attacher: ATTACHER, nodeName: 'ghost-node', source: { persistentVolumeName: pvName } },
});

beforeAll(async () => {
  // Without the PV binder, the PVs keep the phase they are given while they are read twice.
  lab = await startLab({ nodes: 2, withoutControllers: ['persistentvolume-binder-controller'] });
  api = new ApiClient(lab.endpoint);
  const zone = `${lab.region}a`;
  const pvs = [
    pv('pb-csi', {
      csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0123456789abcdef0', fsType: 'ext4' },
      claimRef: { namespace: 'db', name: 'data-db-0', uid: '5e123478-3c82-461b-b9e8-6a31d41a21ba' },
      storageClassName: 'gp3',
      nodeAffinity: zoneTerm('topology.ebs.csi.aws.com/zone', zone),
      mountOptions: ['noatime'],
    }),
    pv('pb-in-tree', {
      awsElasticBlockStore: { volumeID: 'vol-0fedcba9876543210', fsType: 'ext4' },
      accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
      nodeAffinity: zoneTerm('topology.kubernetes.io/zone', zone),
    }),
    pv('pb-local', {
      local: { path: '/mnt/disks/ssd1' },
      nodeAffinity: zoneTerm('kubernetes.io/hostname', 'node-a'),
      storageClassName: 'local',
    }),
    pv('pb-host-path', { hostPath: { path: '/tmp/pb' } }),
    pv('pb-nfs', { nfs: { server: '10.0.0.1', path: '/export' }, accessModes: ['ReadWriteMany'] }),
  ];
  for (const body of pvs) await api.call({ method: 'POST', path: PVS, body });
  await api.call({
    method: 'PATCH',
    path: `${PVS}/pb-csi/status`,
    body: { status: { phase: 'Released', message: 'claim gone' } },
    contentType: MERGE,
  });

  await api.call({
    method: 'POST',
    path: VAS,
    body: va('pb-attached', 'pb-csi', { 'csi.alpha.kubernetes.io/node-id': 'i-0123456789abcdef0' }),
  });
  await api.call({
    method: 'PATCH',
    path: `${VAS}/pb-attached/status`,
    body: { status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdba' } } },
    contentType: MERGE,
  });
  await api.call({ method: 'POST', path: VAS, body: va('pb-failing', 'pb-in-tree') });
  await api.call({
    method: 'PATCH',
    path: `${VAS}/pb-failing/status`,
    body: {
      status: {
        attached: false,
        attachError: { time: '2026-11-30T08:15:42Z', message: 'rpc error: volume in use' },
        detachError: { time: '2026-11-30T08:16:01Z', message: 'rpc error: timed out' },
      },
    },
    contentType: MERGE,
  });
  // Held by its finalizer, a deleted attachment stays, with its deletionTimestamp.
  await api.call({ method: 'POST', path: VAS, body: va('pb-deleting', 'pb-local') });
  await api.call({ method: 'DELETE', path: `${VAS}/pb-deleting` });
});

afterAll(async () => {
  await lab?.stop();
});

const ours = <T extends { name: string }>(views: readonly T[]) =>
  views.filter((v) => v.name.startsWith('pb-')).sort((a, b) => a.name.localeCompare(b.name));

describe('lists read in protobuf', () => {
  it('are what the API server answers for VolumeAttachments and PVs when protobuf is accepted', async () => {
    for (const path of [VAS, PVS]) {
      const answer = await api.callRaw({
        method: 'GET',
        path,
        query: { limit: '1' },
        accept: `${PROTOBUF_CONTENT_TYPE}, application/json`,
      });
      expect(answer.contentType).toBe(PROTOBUF_CONTENT_TYPE);
    }
  });

  it('give the same VolumeAttachment views as JSON, across pages of two', async () => {
    const json = await new RawLister(api, 2).list('listVolumeAttachment', VAS, {}, toVolumeAttachmentView);
    const protobuf = await new KubeCluster(lab.endpoint, { pageSize: 2 }).listVolumeAttachments();

    expect(ours(json)).toHaveLength(3);
    expect(ours(protobuf)).toStrictEqual(ours(json));
    expect(ours(protobuf)).toStrictEqual([
      expect.objectContaining({ name: 'pb-attached', attached: true, csiNodeId: 'i-0123456789abcdef0' }),
      expect.objectContaining({
        name: 'pb-deleting',
        deletionTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        finalizers: [HOLD],
      }),
      expect.objectContaining({
        name: 'pb-failing',
        persistentVolumeName: 'pb-in-tree',
        attachError: { message: 'rpc error: volume in use', time: '2026-11-30T08:15:42Z' },
        detachError: { message: 'rpc error: timed out', time: '2026-11-30T08:16:01Z' },
      }),
    ]);
  });

  it('give the same PV views as JSON, whatever the volume source, across pages of two', async () => {
    const json = await new RawLister(api, 2).list('listPersistentVolume', PVS, {}, toPersistentVolumeView);
    const protobuf = await new KubeCluster(lab.endpoint, { pageSize: 2 }).listPersistentVolumes();

    expect(ours(json)).toHaveLength(5);
    expect(ours(protobuf)).toStrictEqual(ours(json));
    const byName = new Map(ours(protobuf).map((v) => [v.name, v]));
    expect(byName.get('pb-csi')).toMatchObject({
      driver: 'ebs.csi.aws.com',
      claim: { namespace: 'db', name: 'data-db-0' },
      zones: [`${lab.region}a`],
      phase: 'Released',
    });
    expect(byName.get('pb-in-tree')).toMatchObject({
      driver: 'kubernetes.io/aws-ebs',
      volumeHandle: 'vol-0fedcba9876543210',
    });
    expect(byName.get('pb-local')).toMatchObject({ nodeBound: true, nodeNames: ['node-a'] });
    expect(byName.get('pb-host-path')).toMatchObject({ nodeBound: true });
    expect(byName.get('pb-nfs')).toMatchObject({ driver: undefined, nodeBound: false });
  });

  it('turn a protobuf error answer into the Status it stands for', async () => {
    const failure = await new RawLister(api, 2)
      .page(VAS, {}, 'not-a-continue-token', { protobuf: 'VolumeAttachmentList' })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiStatusError);
    const { statusCode, body } = failure as ApiStatusError;
    expect(statusCode).toBe(400);
    expect(JSON.parse(body)).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'BadRequest',
      code: 400,
      message: expect.stringMatching(/continue/),
    });
  });
});
