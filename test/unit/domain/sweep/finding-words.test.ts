/**
 * What each sweep finding says and points at: its summary, the objects it names, the evidence lines an
 * operator reads, and what the provider is asked. The report is the sweep's product (it never acts on
 * these findings by itself, except VA_NODE_MISSING with proof), so its words are pinned whole, one
 * finding per rule. The lines of the objects themselves are checked in describe.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { SweepVerdict } from '../../../../lib/domain/sweep/finding.js';
import { describePv, describeVa } from '../../../../lib/domain/sweep/rules/describe.js';
import { noAttachCapacity } from '../../../../lib/domain/sweep/rules/no-attach-capacity.js';
import {
  noHealthyNodeInPvZone,
  pendingVolumes,
} from '../../../../lib/domain/sweep/rules/no-healthy-node-in-pv-zone.js';
import { scImmediateBinding } from '../../../../lib/domain/sweep/rules/sc-immediate-binding.js';
import { taintLeftBehind } from '../../../../lib/domain/sweep/rules/taint-left-behind.js';
import { targetAttachStuck } from '../../../../lib/domain/sweep/rules/target-attach-stuck.js';
import { vaNodeMissing } from '../../../../lib/domain/sweep/rules/va-node-missing.js';
import { vaOnNotReadyNode } from '../../../../lib/domain/sweep/rules/va-on-not-ready-node.js';
import { vaPvMissing } from '../../../../lib/domain/sweep/rules/va-pv-missing.js';
import { vaStuckDeleting } from '../../../../lib/domain/sweep/rules/va-stuck-deleting.js';
import { aClaim, ago, aNode, aPod, aPv, aVa, world } from './support.js';

const draftOf = (verdict: SweepVerdict) => {
  if (typeof verdict !== 'object' || verdict === null || !('draft' in verdict)) {
    throw new Error(`expected a finding, got ${JSON.stringify(verdict)}`);
  }
  return verdict.draft;
};

const PV1 = 'PersistentVolume pv-1: driver ebs.csi.aws.com, handle vol-pv-1, ReadWriteOnce, zones us-east-1a';
const oos = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };
const providerIdOf = (name: string) => aNode(name).providerId;
const probeOfPv1 = (via: string | undefined) => [
  { volumeId: 'vol-pv-1', zones: ['us-east-1a'], ...(via ? { via } : {}), driver: 'ebs.csi.aws.com' },
];
const vaRef = (name: string) => ({ kind: 'VolumeAttachment', name, uid: `uid-${name}` });

describe('VA_ON_NOTREADY_NODE says', () => {
  it('how long the node has been down and which attached volumes it holds (not those detached or deleting)', () => {
    const node = aNode('node-a', { ready: 'Unknown', readySince: ago(600) });
    const attached = aVa('va-1');
    const vas = [
      attached,
      aVa('va-2', { persistentVolumeName: 'pv-2', attached: false }),
      aVa('va-3', { deletionTimestamp: ago(5) }),
    ];
    const index = world({ nodes: [node], volumeAttachments: vas });
    const hint = providerIdOf('node-a');
    expect(draftOf(vaOnNotReadyNode.check(node, index))).toEqual({
      class: 'VA_ON_NOTREADY_NODE',
      key: 'node-a',
      summary:
        'Node node-a has been NotReady for 10m and still holds 1 attached volume(s); no fencing is in progress',
      objects: [{ kind: 'Node', name: 'node-a' }, vaRef('va-1')],
      evidence: ['node node-a: Ready=Unknown since 10m ago', describeVa(attached, index)],
      probe: { instances: [hint], disks: probeOfPv1(hint) },
    });
  });

  it('no machine to ask about for a node without a providerID, and no disk for a volume without a PV', () => {
    const node = aNode('node-a', { ready: 'False', readySince: ago(600), providerId: undefined });
    const index = world({
      nodes: [node],
      volumeAttachments: [aVa('va-9', { persistentVolumeName: undefined })],
    });
    expect(draftOf(vaOnNotReadyNode.check(node, index)).probe).toEqual({ instances: [], disks: [] });
  });
});

describe('VA_STUCK_DELETING says', () => {
  it('how long the deletion has been held and by which finalizer, with the node and PV', () => {
    const va = aVa('va-1', { deletionTimestamp: ago(900), finalizers: [] });
    const index = world({ volumeAttachments: [va] });
    const hint = providerIdOf('node-a');
    expect(draftOf(vaStuckDeleting.check(va, index))).toEqual({
      class: 'VA_STUCK_DELETING',
      key: 'va-1',
      summary: 'VolumeAttachment va-1 has been deleting for 15m, held by no finalizer',
      objects: [vaRef('va-1'), { kind: 'Node', name: 'node-a' }],
      evidence: [describeVa(va, index), 'node node-a: Ready=True since 24h ago', PV1],
      probe: { instances: [hint], disks: probeOfPv1(hint) },
    });
  });

  it('that the node is gone, and asks about the machine the CSI node id names', () => {
    const va = aVa('va-2', {
      nodeName: 'node-z',
      deletionTimestamp: ago(900),
      persistentVolumeName: 'pv-9',
      csiNodeId: 'i-0csi',
      finalizers: ['a', 'b'],
    });
    const index = world({ volumeAttachments: [va] });
    expect(draftOf(vaStuckDeleting.check(va, index))).toEqual({
      class: 'VA_STUCK_DELETING',
      key: 'va-2',
      summary: 'VolumeAttachment va-2 has been deleting for 15m, held by a, b',
      objects: [vaRef('va-2'), { kind: 'Node', name: 'node-z' }],
      evidence: [describeVa(va, index), 'node node-z: not found'],
      probe: { instances: ['i-0csi'], disks: [] },
    });
  });
});

describe('VA_PV_MISSING says', () => {
  it('which PV is gone, on which existing node', () => {
    const va = aVa('va-2', { persistentVolumeName: 'pv-gone' });
    const index = world({ volumeAttachments: [va] });
    expect(draftOf(vaPvMissing.check(va, index))).toEqual({
      class: 'VA_PV_MISSING',
      key: 'va-2',
      summary: 'VolumeAttachment va-2 is for PersistentVolume pv-gone, which no longer exists',
      objects: [
        vaRef('va-2'),
        { kind: 'PersistentVolume', name: 'pv-gone' },
        { kind: 'Node', name: 'node-a' },
      ],
      evidence: [
        describeVa(va, index),
        'PersistentVolume pv-gone: not found',
        'node node-a: Ready=True since 24h ago',
      ],
      probe: { instances: [providerIdOf('node-a')], disks: [] },
    });
  });
});

describe('without a machine to name', () => {
  it('VA_PV_MISSING and VA_STUCK_DELETING ask the provider about no machine', () => {
    const anonymous = aNode('node-a', { providerId: undefined });
    const gonePv = aVa('va-2', { persistentVolumeName: 'pv-gone' });
    expect(
      draftOf(vaPvMissing.check(gonePv, world({ nodes: [anonymous], volumeAttachments: [gonePv] }))).probe,
    ).toEqual({
      instances: [],
      disks: [],
    });
    const deleting = aVa('va-1', { deletionTimestamp: ago(900) });
    expect(
      draftOf(vaStuckDeleting.check(deleting, world({ nodes: [anonymous], volumeAttachments: [deleting] })))
        .probe,
    ).toEqual({ instances: [], disks: probeOfPv1(undefined) });
  });
});

describe('VA_NODE_MISSING says', () => {
  it('which node is gone, with the PV, and asks through the machine the CSI node id names', () => {
    const va = aVa('va-1', { nodeName: 'node-z', csiNodeId: 'i-0csi' });
    const index = world({ volumeAttachments: [va] });
    expect(draftOf(vaNodeMissing.check(va, index))).toEqual({
      class: 'VA_NODE_MISSING',
      key: 'va-1',
      summary: 'VolumeAttachment va-1 is for node node-z, which no longer exists',
      objects: [vaRef('va-1'), { kind: 'Node', name: 'node-z' }, { kind: 'PersistentVolume', name: 'pv-1' }],
      evidence: [describeVa(va, index), 'node node-z: not found', PV1],
      probe: { instances: ['i-0csi'], disks: probeOfPv1('i-0csi') },
    });
  });

  it('"(inline)" for a volume without a PV, and asks about no machine without a CSI node id', () => {
    const va = aVa('va-2', { nodeName: 'node-z', persistentVolumeName: undefined });
    const index = world({ volumeAttachments: [va] });
    expect(draftOf(vaNodeMissing.check(va, index))).toMatchObject({
      objects: [vaRef('va-2'), { kind: 'Node', name: 'node-z' }],
      evidence: [describeVa(va, index), 'node node-z: not found', 'PersistentVolume (inline): not found'],
      probe: { instances: [], disks: [] },
    });
  });
});

describe('TAINT_LEFT_BEHIND says', () => {
  it('that the node is Ready with nothing left to drain, quoting the fencer’s record', () => {
    const node = aNode('node-c', {
      taints: [oos],
      annotations: { 'kube-fencer.io/fence-record': '{"runId":"r1"}' },
    });
    expect(draftOf(taintLeftBehind.check(node, world({ nodes: [node], volumeAttachments: [] })))).toEqual({
      class: 'TAINT_LEFT_BEHIND',
      key: 'node-c',
      summary:
        'Node node-c is Ready but still tainted node.kubernetes.io/out-of-service, with no terminating pods and no VolumeAttachments left',
      objects: [{ kind: 'Node', name: 'node-c' }],
      evidence: [
        'node node-c: Ready=True since 24h ago, taints node.kubernetes.io/out-of-service:NoExecute',
        'fence record (added by kube-fencer): {"runId":"r1"}',
        'terminating pods on the node: 0; VolumeAttachments on the node: 0',
      ],
      probe: { instances: [providerIdOf('node-c')], disks: [] },
    });
  });

  it('that someone else added a taint without a record', () => {
    const node = aNode('node-d', { taints: [oos], providerId: undefined });
    expect(
      draftOf(taintLeftBehind.check(node, world({ nodes: [node], volumeAttachments: [] }))),
    ).toMatchObject({
      evidence: [
        expect.any(String),
        'no kube-fencer fence record: someone else added the taint',
        expect.any(String),
      ],
      probe: { instances: [], disks: [] },
    });
  });
});

describe('SC_IMMEDIATE_BINDING says', () => {
  it('which zonal StorageClass binds Immediately', () => {
    const sc = {
      name: 'gp3',
      provisioner: 'ebs.csi.aws.com',
      volumeBindingMode: 'Immediate',
      allowedTopologies: false,
    };
    expect(draftOf(scImmediateBinding.check(sc, world()))).toEqual({
      class: 'SC_IMMEDIATE_BINDING',
      key: 'gp3',
      summary:
        'StorageClass gp3 (ebs.csi.aws.com, zonal) binds Immediately: volumes may be created in a zone where their pod cannot run',
      objects: [{ kind: 'StorageClass', name: 'gp3' }],
      evidence: [
        'StorageClass gp3: provisioner ebs.csi.aws.com, volumeBindingMode Immediate, no allowedTopologies',
      ],
      probe: { instances: [], disks: [] },
    });
  });
});

describe('TARGET_ATTACH_STUCK says', () => {
  it('how long the attach has failed and why, and names the attachment that still holds the disk', () => {
    const va = aVa('va-new', {
      nodeName: 'node-b',
      attached: false,
      attachError: { message: 'Multi-Attach', time: ago(400) },
    });
    const old = aVa('va-old', { nodeName: 'node-a' });
    const index = world({ volumeAttachments: [old, va] });
    const hint = providerIdOf('node-b');
    expect(draftOf(targetAttachStuck.check(va, index))).toEqual({
      class: 'TARGET_ATTACH_STUCK',
      key: 'va-new',
      summary: 'VolumeAttachment va-new has failed to attach to node-b for 7m: Multi-Attach',
      objects: [vaRef('va-new'), { kind: 'Node', name: 'node-b' }, vaRef('va-old')],
      evidence: [
        describeVa(va, index),
        'node node-b: Ready=True since 24h ago',
        PV1,
        `still held by ${describeVa(old, index)}`,
      ],
      probe: { instances: [hint], disks: probeOfPv1(hint) },
    });
  });

  it('that the node is not found, and that an inline volume has no holder and no disk to ask about', () => {
    const va = aVa('va-new', {
      nodeName: 'node-z',
      persistentVolumeName: undefined,
      attached: false,
      attachError: { message: 'boom' },
    });
    const index = world({ volumeAttachments: [aVa('va-1'), va] });
    expect(draftOf(targetAttachStuck.check(va, index))).toMatchObject({
      objects: [vaRef('va-new'), { kind: 'Node', name: 'node-z' }],
      evidence: [describeVa(va, index), 'node node-z: not found'],
      probe: { instances: [], disks: [] },
    });
  });
});

describe('NO_HEALTHY_NODE_IN_PV_ZONE says', () => {
  const db0 = aPod('db-0');
  const pods = [db0, aPod('db-1', { nodeName: 'node-c' })];
  const findings = (index: ReturnType<typeof world>) =>
    pendingVolumes(index).map((subject) => draftOf(noHealthyNodeInPvZone.check(subject, index)));
  const claims = [aClaim('data-db-0', 'pv-1'), aClaim('data-db-1', 'pv-1')];

  it('which zone has no Ready node, which pods wait, and the state of the nodes in it', () => {
    const index = world({ nodes: [aNode('node-a', { ready: 'False' })], pendingPods: pods, claims });
    expect(findings(index)).toEqual([
      {
        class: 'NO_HEALTHY_NODE_IN_PV_ZONE',
        key: 'pv-1',
        summary:
          'PersistentVolume pv-1 lives in us-east-1a, which has no Ready, schedulable node; 2 pod(s) using it are Pending',
        objects: [
          { kind: 'PersistentVolume', name: 'pv-1' },
          { kind: 'Pod', name: 'db-0', namespace: 'default', uid: 'uid-db-0' },
          { kind: 'Pod', name: 'db-1', namespace: 'default', uid: 'uid-db-1' },
        ],
        evidence: [
          PV1,
          'pod default/db-0: Pending, unscheduled',
          'pod default/db-1: Pending on node-c',
          'nodes in us-east-1a: node node-a: Ready=False since 24h ago',
        ],
        probe: { instances: [], disks: [] },
      },
    ]);
  });

  it('that there is no node in the zone at all (a node without a zone label is in none)', () => {
    const index = world({ nodes: [aNode('node-a', { labels: {} })], pendingPods: [db0], claims });
    expect(findings(index).map((draft) => draft.evidence)).toEqual([
      [PV1, 'pod default/db-0: Pending, unscheduled', 'no node in us-east-1a'],
    ]);
  });
});

describe('NO_ATTACH_CAPACITY says', () => {
  it('which driver is full, and each eligible node’s count', () => {
    const csiNode = (name: string) => ({ name, drivers: [{ name: 'ebs.csi.aws.com', allocatableCount: 1 }] });
    const index = world({
      claims: [aClaim('data-db-0', 'pv-1')],
      volumeAttachments: [aVa('va-a', { nodeName: 'node-a' }), aVa('va-b', { nodeName: 'node-b' })],
      csiNodes: [csiNode('node-a'), csiNode('node-b')],
    });
    expect(draftOf(noAttachCapacity.check(aPod('db-0'), index))).toEqual({
      class: 'NO_ATTACH_CAPACITY',
      key: 'default/db-0',
      summary:
        'Pod default/db-0 is Pending: every eligible node already holds its limit of ebs.csi.aws.com volumes',
      objects: [
        { kind: 'Pod', name: 'db-0', namespace: 'default', uid: 'uid-db-0' },
        { kind: 'PersistentVolume', name: 'pv-1' },
      ],
      evidence: [
        describePv(aPv('pv-1')),
        'CSINode node-a: 1 of 1 ebs.csi.aws.com attachments used',
        'CSINode node-b: 1 of 1 ebs.csi.aws.com attachments used',
      ],
      probe: { instances: [], disks: [] },
    });
  });
});
