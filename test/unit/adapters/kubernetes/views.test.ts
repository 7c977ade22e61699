import type { V1Node, V1Pod, V1Toleration } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  isoTime,
  toLeaseView,
  toleratesEveryNoExecute,
  toleratesOutOfService,
  toNodeView,
  toPodView,
  toServerVersion,
} from '../../../../lib/adapters/kubernetes/views.js';

const CREATED = new Date('2026-03-01T10:00:00Z');
const HEARTBEAT = new Date('2026-03-01T10:05:00Z');

/** A node as client-node deserialises it: timestamps are Dates. */
const aNode = (overrides: Partial<V1Node> = {}): V1Node => ({
  metadata: {
    name: 'node-b',
    uid: 'uid-b',
    resourceVersion: '42',
    creationTimestamp: CREATED,
    labels: { 'topology.kubernetes.io/zone': 'us-east-1a' },
    annotations: { 'kube-fencer.io/opt-out': 'true' },
  },
  spec: {
    providerID: 'aws:///us-east-1a/i-0123456789abcdef0',
    taints: [
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: HEARTBEAT },
      { key: 'dedicated', value: 'db', effect: 'NoSchedule' },
    ],
  },
  status: {
    conditions: [
      { type: 'MemoryPressure', status: 'Unknown' },
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        lastHeartbeatTime: HEARTBEAT,
        lastTransitionTime: new Date('2026-03-01T10:06:00Z'),
      },
    ],
    addresses: [
      { type: 'InternalIP', address: '10.0.1.23' },
      { type: 'Hostname', address: 'ip-10-0-1-23.ec2.internal' },
    ],
  },
  ...overrides,
});

describe('toNodeView', () => {
  it('maps identity, Ready, heartbeat, providerID, labels, annotations and taints', () => {
    // Act
    const view = toNodeView(aNode());

    // Assess
    expect(view).toStrictEqual({
      name: 'node-b',
      uid: 'uid-b',
      resourceVersion: '42',
      createdAt: '2026-03-01T10:00:00.000Z',
      ready: 'Unknown',
      readySince: '2026-03-01T10:06:00.000Z',
      lastHeartbeat: '2026-03-01T10:05:00.000Z',
      readyReason: 'NodeStatusUnknown',
      addresses: [
        { type: 'InternalIP', address: '10.0.1.23' },
        { type: 'Hostname', address: 'ip-10-0-1-23.ec2.internal' },
      ],
      providerId: 'aws:///us-east-1a/i-0123456789abcdef0',
      unschedulable: false,
      labels: { 'topology.kubernetes.io/zone': 'us-east-1a' },
      annotations: { 'kube-fencer.io/opt-out': 'true' },
      taints: [
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-03-01T10:05:00.000Z' },
        { key: 'dedicated', value: 'db', effect: 'NoSchedule' },
      ],
    });
  });

  it('reports Missing when the node has no Ready condition yet', () => {
    // Act
    const view = toNodeView(aNode({ status: { conditions: [] } }));

    // Assess
    expect(view).toMatchObject({ ready: 'Missing', readySince: undefined, lastHeartbeat: undefined });
  });

  it('reads an unknown Ready status as Unknown, never as True', () => {
    // Act
    const view = toNodeView(aNode({ status: { conditions: [{ type: 'Ready', status: 'Maybe' }] } }));

    // Assess
    expect(view.ready).toBe('Unknown');
  });

  it('handles a bare node: no spec, no labels, no taints', () => {
    // Act
    const view = toNodeView({ metadata: { name: 'bare' } });

    // Assess
    expect(view).toMatchObject({
      name: 'bare',
      providerId: undefined,
      unschedulable: false,
      labels: {},
      annotations: {},
      taints: [],
    });
  });

  it('reports a cordoned node as unschedulable', () => {
    // Act
    const view = toNodeView(aNode({ spec: { unschedulable: true } }));

    // Assess
    expect(view.unschedulable).toBe(true);
  });

  it('keeps the volumes the kubelet last reported in use, and omits an empty report', () => {
    const rbd = 'kubernetes.io/csi/rbd.csi.ceph.com^0001-0024-fsid-0000000000000001-db';

    expect(toNodeView(aNode({ status: { volumesInUse: [rbd] } })).volumesInUse).toEqual([rbd]);
    expect(toNodeView(aNode({ status: { volumesInUse: [] } }))).not.toHaveProperty('volumesInUse');
  });

  it('keeps the names of the volumes the attach-detach controller recorded attached, and omits none', () => {
    const ebs = 'kubernetes.io/csi/ebs.csi.aws.com^vol-0123456789abcdef0';

    expect(
      toNodeView(aNode({ status: { volumesAttached: [{ name: ebs, devicePath: '' }] } })).volumesAttached,
    ).toEqual([ebs]);
    expect(toNodeView(aNode({ status: { volumesAttached: [] } }))).not.toHaveProperty('volumesAttached');
  });
});

describe('toLeaseView', () => {
  it('keeps MicroTime renewals, which client-node leaves as strings', () => {
    // Act
    const view = toLeaseView({
      spec: {
        holderIdentity: 'node-b',
        renewTime: '2026-03-01T10:05:00.123456Z' as unknown as Date,
        leaseDurationSeconds: 40,
      },
    });

    // Assess
    expect(view).toStrictEqual({
      holder: 'node-b',
      renewTime: '2026-03-01T10:05:00.123456Z',
      writtenAt: undefined,
      durationSeconds: 40,
    });
  });

  it('leaves an empty lease empty', () => {
    expect(toLeaseView({ spec: {} })).toStrictEqual({
      holder: undefined,
      renewTime: undefined,
      writtenAt: undefined,
      durationSeconds: undefined,
    });
  });

  it("is written when the API server last stamped a write: the newest of its creation and its managers' writes", () => {
    // A kubelet whose clock runs five minutes behind: its renewTime is old, the server's stamps are not.
    const view = toLeaseView({
      metadata: {
        creationTimestamp: new Date('2026-03-01T09:00:00Z'),
        managedFields: [
          { manager: 'kubelet', operation: 'Update', time: new Date('2026-03-01T10:05:07Z') },
          { manager: 'kubectl', operation: 'Update', time: new Date('2026-03-01T09:30:00Z') },
          { manager: 'kube-controller-manager', operation: 'Update' },
        ],
      },
      spec: { renewTime: '2026-03-01T10:00:07.000000Z' as unknown as Date },
    });

    expect(view.writtenAt).toBe('2026-03-01T10:05:07.000Z');
    expect(view.renewTime).toBe('2026-03-01T10:00:07.000000Z');
  });

  it('falls back on the creation when a writer stripped managedFields, and ignores stamps it cannot read', () => {
    const view = toLeaseView({
      metadata: {
        creationTimestamp: new Date('2026-03-01T10:04:00Z'),
        managedFields: [{ manager: 'x', time: 'soon' as unknown as Date }],
      },
      spec: {},
    });

    expect(view.writtenAt).toBe('2026-03-01T10:04:00.000Z');
  });
});

describe('isoTime', () => {
  it.each([
    [new Date('2026-03-01T10:00:00Z'), '2026-03-01T10:00:00.000Z'],
    ['2026-03-01T10:00:00Z', '2026-03-01T10:00:00Z'],
    [undefined, undefined],
    [new Date('not a date'), undefined],
  ])('turns %j into %j', (input, expected) => {
    expect(isoTime(input)).toBe(expected);
  });
});

const aPod = (overrides: Partial<V1Pod['spec']> = {}, metadata: Partial<V1Pod['metadata']> = {}): V1Pod => ({
  metadata: { namespace: 'default', name: 'db-0', uid: 'uid-pod', ...metadata },
  spec: { nodeName: 'node-b', containers: [{ name: 'postgres' }], ...overrides },
  status: { phase: 'Running' },
});

describe('toPodView', () => {
  it('names the claims it mounts, generic ephemeral volumes included', () => {
    // Act
    const view = toPodView(
      aPod({
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } },
          { name: 'config', configMap: { name: 'db-config' } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
      }),
    );

    // Assess
    expect(view.claimNames).toStrictEqual(['data-db-0', 'db-0-scratch']);
  });

  it('maps identity, node, phase, deletion and the controlling owner', () => {
    // Act
    const view = toPodView(
      aPod(
        {},
        {
          deletionTimestamp: new Date('2026-03-01T10:07:00Z'),
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '1' },
            { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: '2', controller: true },
          ],
        },
      ),
    );

    // Assess
    expect(view).toStrictEqual({
      namespace: 'default',
      name: 'db-0',
      uid: 'uid-pod',
      nodeName: 'node-b',
      phase: 'Running',
      deletionTimestamp: '2026-03-01T10:07:00.000Z',
      claimNames: [],
      toleratesEverything: false,
      toleratesOutOfService: false,
      ownerKind: 'StatefulSet',
    });
  });

  it('marks a static pod by its mirror annotation and keeps its component label', () => {
    // Act
    const mirror = toPodView(
      aPod(
        {},
        {
          namespace: 'kube-system',
          name: 'etcd-node-b',
          annotations: { 'kubernetes.io/config.mirror': 'a1b2' },
          labels: { component: 'etcd', tier: 'control-plane' },
        },
      ),
    );
    const ordinary = toPodView(aPod());

    // Assess
    expect(mirror).toMatchObject({ mirror: true, component: 'etcd' });
    expect(ordinary.mirror).toBeUndefined();
    expect(ordinary.component).toBeUndefined();
  });

  it('reports a DaemonSet-style catch-all toleration', () => {
    // Act
    const view = toPodView(aPod({ tolerations: [{ operator: 'Exists' }] }));

    // Assess
    expect(view.toleratesEverything).toBe(true);
  });
});

describe('toleratesEveryNoExecute', () => {
  it.each<[string, V1Toleration, boolean]>([
    ['Exists, no key, no effect', { operator: 'Exists' }, true],
    ['Exists, no key, NoExecute', { operator: 'Exists', effect: 'NoExecute' }, true],
    ['Exists, no key, NoSchedule only', { operator: 'Exists', effect: 'NoSchedule' }, false],
    ['Exists on one key', { operator: 'Exists', key: 'node.kubernetes.io/unreachable' }, false],
    ['Equal with no key', { operator: 'Equal', effect: 'NoExecute' }, false],
    ['no operator (Equal by default)', { effect: 'NoExecute' }, false],
    ['Exists but only for a while', { operator: 'Exists', tolerationSeconds: 300 }, false],
  ])('%s → %s', (_name, toleration, expected) => {
    expect(toleratesEveryNoExecute(toleration)).toBe(expected);
  });
});

describe('toServerVersion', () => {
  it.each([
    [
      { major: '1', minor: '36', gitVersion: 'v1.36.0' },
      { major: 1, minor: 36 },
    ],
    [
      { major: '1', minor: '36+', gitVersion: 'v1.36.2-eks-1234' },
      { major: 1, minor: 36 },
    ],
    [
      { major: '', minor: '', gitVersion: 'v1.29.3-gke.100' },
      { major: 1, minor: 29 },
    ],
  ])('reads %j', (info, expected) => {
    // Act
    const version = toServerVersion(info as Parameters<typeof toServerVersion>[0]);

    // Assess
    expect(version).toMatchObject({ ...expected, gitVersion: info.gitVersion });
  });

  it('refuses a version it cannot read rather than guessing', () => {
    // Act
    const read = () =>
      toServerVersion({ major: 'x', minor: 'y', gitVersion: 'dev' } as Parameters<typeof toServerVersion>[0]);

    // Assess
    expect(read).toThrow(/unparseable server version/);
  });
});

describe('toleratesOutOfService', () => {
  const oos = 'node.kubernetes.io/out-of-service';

  it.each<[string, V1Toleration, boolean]>([
    ['Exists with no key (tolerates everything)', { operator: 'Exists' }, true],
    ['Exists on its key', { key: oos, operator: 'Exists', effect: 'NoExecute' }, true],
    ['Equal nodeshutdown', { key: oos, operator: 'Equal', value: 'nodeshutdown' }, true],
    ['Equal another value', { key: oos, operator: 'Equal', value: 'maintenance' }, false],
    ['another key', { key: 'node.kubernetes.io/unreachable', operator: 'Exists' }, false],
    ['NoSchedule only', { key: oos, operator: 'Exists', effect: 'NoSchedule' }, false],
    ['for a while only', { key: oos, operator: 'Exists', tolerationSeconds: 30 }, false],
  ])('%s: %s', (_, toleration, expected) => {
    expect(toleratesOutOfService(toleration)).toBe(expected);
  });
});
