import { describe, expect, it } from 'vitest';
import { toObjectEventView } from '../../../../lib/adapters/kubernetes/event-views.js';
import {
  toCsiNodeView,
  toPersistentVolumeClaimView,
  toPersistentVolumeView,
  toStorageClassView,
  toVolumeAttachmentView,
} from '../../../../lib/adapters/kubernetes/storage-views.js';
import { toPodView } from '../../../../lib/adapters/kubernetes/views.js';

describe('views for sweeps and diagnose', () => {
  it('reads the CSI node id the attacher recorded on a VolumeAttachment', () => {
    const view = toVolumeAttachmentView({
      metadata: { name: 'csi-1', annotations: { 'csi.alpha.kubernetes.io/node-id': 'i-0aaaaaaaaaaaaaaa1' } },
      spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-a', source: { persistentVolumeName: 'pv-1' } },
    });
    expect(view.csiNodeId).toBe('i-0aaaaaaaaaaaaaaa1');
  });

  it('reads a claim, its volume and phase', () => {
    expect(
      toPersistentVolumeClaimView({
        metadata: { namespace: 'prod', name: 'data-db-0', uid: 'u' },
        spec: { volumeName: 'pv-1', accessModes: ['ReadWriteOnce'], storageClassName: 'gp3' },
        status: { phase: 'Bound' },
      }),
    ).toStrictEqual({
      namespace: 'prod',
      name: 'data-db-0',
      uid: 'u',
      volumeName: 'pv-1',
      storageClassName: 'gp3',
      accessModes: ['ReadWriteOnce'],
      phase: 'Bound',
    });
  });

  it('reads a StorageClass without a binding mode as Immediate (the API default)', () => {
    expect(
      toStorageClassView({ metadata: { name: 'gp2' }, provisioner: 'kubernetes.io/aws-ebs' }),
    ).toStrictEqual({
      name: 'gp2',
      provisioner: 'kubernetes.io/aws-ebs',
      volumeBindingMode: 'Immediate',
      allowedTopologies: false,
    });
  });

  it('reads CSINode attach limits, and no limit when allocatable is absent', () => {
    expect(
      toCsiNodeView({
        metadata: { name: 'node-a' },
        spec: {
          drivers: [
            { name: 'ebs.csi.aws.com', nodeID: 'i-1', allocatable: { count: 25 } },
            { name: 'x', nodeID: 'n' },
          ],
        },
      }),
    ).toStrictEqual({
      name: 'node-a',
      drivers: [
        { name: 'ebs.csi.aws.com', nodeId: 'i-1', allocatableCount: 25 },
        { name: 'x', nodeId: 'n' },
      ],
    });
  });

  it('reads the nodes a Local PV is pinned to', () => {
    const view = toPersistentVolumeView({
      metadata: { name: 'local-1' },
      spec: {
        local: { path: '/mnt/disk1' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-c'] }] },
            ],
          },
        },
      },
    });
    expect(view).toMatchObject({ nodeBound: true, nodeNames: ['node-c'] });
  });

  it('reads why a pod waits: its container waiting reason and the scheduler message', () => {
    const view = toPodView({
      metadata: { name: 'db-0', namespace: 'default' },
      status: {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'c',
            image: 'i',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ContainerCreating' } },
          },
        ],
        conditions: [{ type: 'PodScheduled', status: 'False', message: '0/3 nodes are available' }],
      },
    });
    expect(view).toMatchObject({
      waitingReason: 'ContainerCreating',
      unschedulableMessage: '0/3 nodes are available',
    });
  });

  it('reads an Event with its folded count, newest time and reporting component', () => {
    expect(
      toObjectEventView({
        metadata: {},
        involvedObject: { kind: 'Pod', name: 'db-0' },
        type: 'Warning',
        reason: 'FailedAttachVolume',
        message: 'Multi-Attach error',
        count: 7,
        lastTimestamp: new Date('2026-03-01T12:00:00Z'),
        source: { component: 'attachdetach-controller' },
      }),
    ).toStrictEqual({
      type: 'Warning',
      reason: 'FailedAttachVolume',
      message: 'Multi-Attach error',
      count: 7,
      lastSeen: '2026-03-01T12:00:00.000Z',
      source: 'attachdetach-controller',
    });
  });
});
