import type { V1PersistentVolume } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  toPersistentVolumeView,
  toVolumeAttachmentView,
  zonesOf,
} from '../../../../lib/adapters/kubernetes/storage-views.js';

describe('toVolumeAttachmentView', () => {
  it('maps the node, attacher, PV, attachment state and errors', () => {
    // Act
    const view = toVolumeAttachmentView({
      metadata: {
        name: 'csi-abc',
        uid: 'uid-va',
        creationTimestamp: new Date('2026-03-01T10:00:00Z'),
        deletionTimestamp: new Date('2026-03-01T10:09:00Z'),
        finalizers: ['external-attacher/ebs-csi-aws-com'],
      },
      spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-b', source: { persistentVolumeName: 'pv-1' } },
      status: {
        attached: true,
        detachError: { message: 'volume is in use', time: new Date('2026-03-01T10:10:00Z') },
      },
    });

    // Assess
    expect(view).toStrictEqual({
      name: 'csi-abc',
      uid: 'uid-va',
      nodeName: 'node-b',
      attacher: 'ebs.csi.aws.com',
      persistentVolumeName: 'pv-1',
      attached: true,
      attachError: undefined,
      detachError: { message: 'volume is in use', time: '2026-03-01T10:10:00.000Z' },
      deletionTimestamp: '2026-03-01T10:09:00.000Z',
      finalizers: ['external-attacher/ebs-csi-aws-com'],
      createdAt: '2026-03-01T10:00:00.000Z',
    });
  });

  it('reads a VolumeAttachment without status as not attached', () => {
    // Act
    const view = toVolumeAttachmentView({
      metadata: { name: 'csi-new' },
      spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-a', source: {} },
    });

    // Assess
    expect(view).toMatchObject({ attached: false, persistentVolumeName: undefined, finalizers: [] });
  });
});

const zoneTerm = (key: string, values: string[], operator = 'In') => ({
  matchExpressions: [{ key, operator, values }],
});

const aPv = (spec: V1PersistentVolume['spec']): V1PersistentVolume => ({ metadata: { name: 'pv-1' }, spec });

describe('zonesOf', () => {
  it('collects zones from every zone key across terms, without repeats', () => {
    // Act
    const zones = zonesOf(
      aPv({
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              zoneTerm('topology.kubernetes.io/zone', ['us-east-1a']),
              zoneTerm('topology.ebs.csi.aws.com/zone', ['us-east-1a', 'us-east-1b']),
              zoneTerm('failure-domain.beta.kubernetes.io/zone', ['us-east-1c']),
            ],
          },
        },
      }),
    );

    // Assess
    expect(zones).toStrictEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
  });

  it('ignores other keys and operators other than In', () => {
    // Act
    const zones = zonesOf(
      aPv({
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              zoneTerm('kubernetes.io/hostname', ['node-a']),
              zoneTerm('topology.kubernetes.io/zone', ['us-east-1d'], 'NotIn'),
            ],
          },
        },
      }),
    );

    // Assess
    expect(zones).toStrictEqual([]);
  });
});

describe('toPersistentVolumeView', () => {
  it('maps a CSI volume with its claim', () => {
    // Act
    const view = toPersistentVolumeView({
      metadata: { name: 'pv-1' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'lab-ebs',
        claimRef: { namespace: 'default', name: 'data-db-0' },
        csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0abc' },
        nodeAffinity: {
          required: { nodeSelectorTerms: [zoneTerm('topology.kubernetes.io/zone', ['us-east-1a'])] },
        },
      },
      status: { phase: 'Bound' },
    });

    // Assess
    expect(view).toStrictEqual({
      name: 'pv-1',
      driver: 'ebs.csi.aws.com',
      volumeHandle: 'vol-0abc',
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'lab-ebs',
      claim: { namespace: 'default', name: 'data-db-0' },
      zones: ['us-east-1a'],
      nodeBound: false,
      phase: 'Bound',
    });
  });

  it('reports an in-tree EBS volume by its plugin and volume ID', () => {
    // Act
    const view = toPersistentVolumeView(
      aPv({ awsElasticBlockStore: { volumeID: 'aws://us-east-1a/vol-0abc' } }),
    );

    // Assess
    expect(view).toMatchObject({
      driver: 'kubernetes.io/aws-ebs',
      volumeHandle: 'aws://us-east-1a/vol-0abc',
    });
  });

  it.each([
    ['local', aPv({ local: { path: '/mnt/disks/ssd1' } })],
    ['hostPath', aPv({ hostPath: { path: '/data' } })],
  ])('reports a %s volume as bound to its node', (_kind, pv) => {
    expect(toPersistentVolumeView(pv).nodeBound).toBe(true);
  });

  it('leaves an unclaimed volume without a claim', () => {
    expect(toPersistentVolumeView(aPv({})).claim).toBeUndefined();
  });
});
