import { describe, expect, it } from 'vitest';
import { parseFenceRecord, toObservedNode } from '../../../lib/app/observe.js';
import type { NodeView } from '../../../lib/ports/cluster.js';

const RECORD = {
  runId: 'run-1',
  fencedAt: '2026-11-29T10:00:00.000Z',
  instanceId: 'i-0123456789abcdef0',
  proof: 'stopped',
};

const aNode = (overrides: Partial<NodeView> = {}): NodeView => ({
  name: 'node-a',
  uid: 'uid-a',
  resourceVersion: '42',
  createdAt: '2026-11-29T09:00:00.000Z',
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
  it('reads the fence record the fencer wrote', () => {
    expect(parseFenceRecord({ 'kube-fencer.io/fence-record': JSON.stringify(RECORD) })).toEqual(RECORD);
  });

  it('treats an unreadable or incomplete record as no record, so a taint is never taken for ours by mistake', () => {
    expect(parseFenceRecord({ 'kube-fencer.io/fence-record': '{not json' })).toBeNull();
    expect(parseFenceRecord({ 'kube-fencer.io/fence-record': '{"runId":"x"}' })).toBeNull();
    expect(parseFenceRecord({})).toBeNull();
  });

  it('owns an out-of-service taint only when its fence record sits beside it', () => {
    const taint = {
      key: 'node.kubernetes.io/out-of-service',
      value: 'nodeshutdown',
      effect: 'NoExecute' as const,
    };
    const ours = toObservedNode(
      aNode({ taints: [taint], annotations: { 'kube-fencer.io/fence-record': JSON.stringify(RECORD) } }),
      null,
    );
    const theirs = toObservedNode(aNode({ taints: [taint] }), null);
    expect(ours.outOfServiceTaint).toEqual({ present: true, ownedByFencer: true });
    expect(theirs.outOfServiceTaint).toEqual({ present: true, ownedByFencer: false });
  });

  it('maps a missing Ready condition to Unknown and a blank providerID to none', () => {
    const node = toObservedNode(aNode({ ready: 'Missing', providerId: '  ' }), {
      renewTime: '2026-11-29T09:59:30.000Z',
    });
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
    );
    expect(node.controlPlane).toBe(true);
    expect(node.optedOut).toBe(true);
  });
});
