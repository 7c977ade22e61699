import { describe, expect, it } from 'vitest';
import { observe } from '../../../../lib/app/fence/observe.js';
import { toObservedNode } from '../../../../lib/app/fence/observe-node.js';
import { parseFenceRecord } from '../../../../lib/app/shared/node-marks.js';
import { isolationPlan } from '../../../../lib/domain/isolation.js';
import type { NodeView } from '../../../../lib/ports/cluster.js';
import type { StorageFenceTarget } from '../../../../lib/ports/storage-fencer.js';
import { oneNodeCluster, recordingCephFencer, storageOnlyDeps } from '../support/ports.js';

const OUR_TAINT = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
  timeAdded: '2026-11-29T10:00:00Z',
} as const;

const RECORD = {
  runId: 'run-1',
  fencedAt: '2026-11-29T10:00:00.000Z',
  instanceId: 'i-0123456789abcdef0',
  proof: 'stopped',
  taint: OUR_TAINT,
};

const READ_AT = '2026-11-29T10:05:00.000Z';

const aNode = (overrides: Partial<NodeView> = {}): NodeView => ({
  name: 'node-a',
  uid: 'uid-a',
  resourceVersion: '42',
  createdAt: '2026-11-29T09:00:00.000Z',
  addresses: [{ type: 'InternalIP', address: '10.0.1.23' }],
  ready: 'Unknown',
  lastHeartbeat: '2026-11-29T09:59:00.000Z',
  providerId: 'aws:///us-east-1a/i-0123456789abcdef0',
  unschedulable: false,
  labels: {},
  annotations: {},
  taints: [],
  ...overrides,
});

describe('observing a node', () => {
  it('reads the fence record the fencer wrote, with its exact taint', () => {
    expect(parseFenceRecord({ 'kube-fencer.io/fence-record': JSON.stringify(RECORD) })).toEqual(RECORD);
  });

  it('treats an unreadable or incomplete record as no record, so a taint is never taken for ours by mistake', () => {
    expect(parseFenceRecord({ 'kube-fencer.io/fence-record': '{not json' })).toBeNull();
    expect(parseFenceRecord({ 'kube-fencer.io/fence-record': '{"runId":"x"}' })).toBeNull();
    expect(parseFenceRecord({})).toBeNull();
  });

  it('treats a record without the exact taint (an older format) as no record', () => {
    const { taint: _, ...withoutTaint } = RECORD;
    expect(parseFenceRecord({ 'kube-fencer.io/fence-record': JSON.stringify(withoutTaint) })).toBeNull();
  });

  it('keeps every out-of-service taint exactly as read, and the record beside them', () => {
    const theirs = { ...OUR_TAINT, timeAdded: '2026-11-29T10:03:00Z' };
    const node = toObservedNode(
      aNode({
        taints: [OUR_TAINT, theirs, { key: 'dedicated', value: 'db', effect: 'NoSchedule' }],
        annotations: { 'kube-fencer.io/fence-record': JSON.stringify(RECORD) },
      }),
      null,
      null,
      READ_AT,
    );
    expect(node.outOfServiceTaints).toEqual([OUR_TAINT, theirs]);
    expect(node.fenceRecord?.taint).toEqual(OUR_TAINT);
  });

  it('stamps the read time, keeps the addresses and the CSI node ids', () => {
    const csiNode = {
      name: 'node-a',
      drivers: [{ name: 'ebs.csi.aws.com', nodeId: 'i-0123456789abcdef0' }, { name: 'x' }],
    };
    const node = toObservedNode(aNode({ readyReason: 'NodeStatusUnknown' }), null, csiNode, READ_AT);
    expect(node).toMatchObject({
      readAt: READ_AT,
      readyReason: 'NodeStatusUnknown',
      addresses: [{ type: 'InternalIP', address: '10.0.1.23' }],
      csiNodeIds: [{ driver: 'ebs.csi.aws.com', nodeId: 'i-0123456789abcdef0' }],
    });
  });

  it('maps a missing Ready condition to Unknown and a blank providerID to none', () => {
    const node = toObservedNode(
      aNode({ ready: 'Missing', providerId: '  ' }),
      { renewTime: '2026-11-29T09:59:30.000Z' },
      null,
      READ_AT,
    );
    expect(node.ready).toBe('Unknown');
    expect(node.providerId).toBeNull();
    expect(node.leaseRenewTime).toBe('2026-11-29T09:59:30.000Z');
  });

  it('sees the control-plane label and the opt-out annotation', () => {
    const node = toObservedNode(
      aNode({
        labels: { 'node-role.kubernetes.io/control-plane': '' },
        annotations: { 'kube-fencer.io/opt-out': 'db' },
      }),
      null,
      null,
      READ_AT,
    );
    expect(node.controlPlane).toBe(true);
    expect(node.optedOut).toBe(true);
  });
});

describe('observing a node whose attachments are gone', () => {
  const RBD_IMAGE = 'kubernetes.io/csi/rbd.csi.ceph.com^0001-0024-fsid-0000000000000001-db';
  const EBS_DISK = 'kubernetes.io/csi/ebs.csi.aws.com^vol-0123456789abcdef0';

  /** A bare-metal node (tainted by hand: its VolumeAttachments were taken) and a storage fencer for RBD. */
  function world(volumesInUse: readonly string[]) {
    const verified: StorageFenceTarget[] = [];
    const node = aNode({ providerId: undefined, volumesInUse });
    const cluster = oneNodeCluster(node, READ_AT);
    const storage = recordingCephFencer(verified, READ_AT);
    const deps = storageOnlyDeps(cluster, storage, READ_AT);
    return { deps, verified };
  }
  const options = { claimTtlSeconds: 300, withDisks: false, providerBudgetMs: 1000 };

  it('counts the network images its kubelet last reported in use, and asks the storage cluster about them', async () => {
    const { deps, verified } = world([EBS_DISK, RBD_IMAGE]);

    const { observation } = await observe(deps, 'node-a', 'prod', options);

    expect(observation.workload.volumeAttachments).toEqual([]);
    expect(observation.workload.imagesInUse).toEqual([RBD_IMAGE]);
    expect(observation.storage?.storage).toBe('ceph-rbd');
    expect(verified).toEqual([{ node: 'node-a', addresses: ['10.0.1.23'], declared: [] }]);
    expect(isolationPlan(observation)).toEqual({ machine: false, storage: true, watch: false });
  });

  it('leaves the storage cluster alone when only disks were in use', async () => {
    const { deps, verified } = world([EBS_DISK]);

    const { observation } = await observe(deps, 'node-a', 'prod', options);

    expect(observation.workload.imagesInUse).toBeUndefined();
    expect(observation.storage).toBeNull();
    expect(verified).toEqual([]);
    expect(isolationPlan(observation).storage).toBe(false);
  });
});
