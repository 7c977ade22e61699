/**
 * observe(), the app's translation of what the ports read into the domain's observation: the machine
 * behind the node (which other Nodes name it, a providerID that cannot be used, provider faults as
 * values), the cluster's health and fencings in flight, and the fence record's checks field by field.
 * decide() trusts these facts; the rules' tests cannot see a mistake made here. The ports are in-memory
 * fakes; the same attacks against the lab's API server are test/e2e/adversarial/.
 */
import { describe, expect, it } from 'vitest';
import { observe, withFreshNode } from '../../../../lib/app/fence/observe.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { parseFenceRecord } from '../../../../lib/app/shared/node-marks.js';
import { ProviderIdError } from '../../../../lib/domain/errors.js';
import type { InstanceRef } from '../../../../lib/domain/instance.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type {
  Cluster,
  FencingClaim,
  NodeView,
  PodView,
  VolumeAttachmentView,
} from '../../../../lib/ports/cluster.js';
import type { ComputeFencer, InstanceInspection } from '../../../../lib/ports/compute-fencer.js';
import type { StorageFenceTarget } from '../../../../lib/ports/storage-fencer.js';
import { inspectionOf, recordingCephFencer } from '../support/ports.js';

const READ_AT = '2026-11-29T10:05:00.000Z';
const INSTANCE = 'i-0123456789abcdef0';

const aNode = (name: string, overrides: Partial<NodeView> = {}): NodeView => ({
  name,
  uid: `uid-${name}`,
  resourceVersion: '42',
  createdAt: '2026-11-29T09:00:00.000Z',
  addresses: [{ type: 'InternalIP', address: '10.0.1.23' }],
  ready: 'Unknown',
  lastHeartbeat: '2026-11-29T09:59:00.000Z',
  providerId: `aws:///us-east-1a/${INSTANCE}`,
  unschedulable: false,
  labels: {},
  annotations: {},
  taints: [],
  ...overrides,
});

/** Parses `aws:///<zone>/<id>` as the EC2 fencer does; anything else is refused with ProviderIdError. */
function awsFencer(inspect: () => Promise<InstanceInspection>): ComputeFencer {
  return {
    provider: 'aws',
    parseProviderId: (providerId: string): InstanceRef => {
      const m = /^aws:\/\/\/([a-z0-9-]+)\/(i-[0-9a-f]+)$/.exec(providerId);
      if (!m?.[2]) throw new ProviderIdError(`cannot use providerID ${providerId}`, { providerId });
      return { provider: 'aws', instanceId: m[2], zone: m[1] ?? '' };
    },
    inspect: async () => inspect(),
  } as unknown as ComputeFencer;
}

const INSPECTION = inspectionOf(INSTANCE, READ_AT, {}, '10.0.1.23');

interface World {
  readonly target?: NodeView | null;
  readonly pods?: readonly PodView[];
  readonly vas?: readonly VolumeAttachmentView[];
  /** A Ceph storage fencer serving `rbd.csi.ceph.com`; what it was asked to verify is recorded. */
  readonly withCeph?: boolean;
  readonly others?: readonly NodeView[];
  readonly claims?: readonly FencingClaim[];
  readonly inspect?: () => Promise<InstanceInspection>;
  /** A second provider: nodes whose providerID starts `other://` belong to it. */
  readonly otherFencer?: ComputeFencer;
}

function world(w: World = {}) {
  const target = w.target === undefined ? aNode('node-a') : w.target;
  let nodeReads = 0;
  const cluster: Partial<Cluster> = {
    getNode: async () => {
      nodeReads += 1;
      return target;
    },
    getNodeLease: async () => ({ lease: null, servedAt: READ_AT }),
    getCSINode: async () => null,
    listNodes: async () => [...(target ? [target] : []), ...(w.others ?? [])],
    serverVersion: async () => ({ major: 1, minor: 36, gitVersion: 'v1.36.3' }),
    listFencingClaims: async () => ({ claims: w.claims ?? [], maxInFlight: 3, serverTime: READ_AT }),
    listPodsOnNode: async () => w.pods ?? [],
    // As the adapter does: the filter names the node, and no filter lists every node's attachments.
    listVolumeAttachments: async (filter = {}) =>
      (w.vas ?? []).filter((v) => filter.nodeName === undefined || v.nodeName === filter.nodeName),
  };
  const fencer = awsFencer(w.inspect ?? (async () => INSPECTION));
  const verified: StorageFenceTarget[] = [];
  const ceph = recordingCephFencer(verified, READ_AT);
  const deps = {
    cluster: cluster as Cluster,
    compute: {
      forProviderId: (id: string) =>
        id.startsWith('aws://') ? fencer : id.startsWith('other://') ? (w.otherFencer ?? null) : null,
    },
    ...(w.withCeph ? { storage: [ceph] } : {}),
    clock: { now: () => new Date(READ_AT) },
    log: { info: () => {}, warn: () => {}, error: () => {} },
    metrics: new InMemoryMetrics(),
  } as unknown as FencerDeps;
  return { deps, fencer, verified, nodeReads: () => nodeReads };
}

const OPTIONS = { claimTtlSeconds: 300, withDisks: false, providerBudgetMs: 1000 };

describe('observing the machine behind a node', () => {
  it('names every other Node whose providerID names the same machine, sorted, and no other', async () => {
    const { deps } = world({
      others: [
        aNode('node-z', { ready: 'True' }),
        // The same instance id in another zone's spelling still names the same machine.
        aNode('node-old', { providerId: `aws:///us-east-1b/${INSTANCE}` }),
        aNode('node-b', { providerId: 'aws:///us-east-1a/i-0fffffffffffffff0' }),
        aNode('node-c', { providerId: undefined }),
        aNode('node-d', { providerId: 'aws:///not a providerID' }),
        aNode('node-e', { providerId: `other:///${INSTANCE}` }),
      ],
      // Another provider's machine may carry the same id text: it is not this machine.
      otherFencer: {
        provider: 'alicloud',
        parseProviderId: () => ({ provider: 'alicloud', instanceId: INSTANCE }),
      } as unknown as ComputeFencer,
    });

    const { observation, ref } = await observe(deps, 'node-a', 'lab', OPTIONS);

    expect(ref).toEqual({ provider: 'aws', instanceId: INSTANCE, zone: 'us-east-1a' });
    expect(observation.instance).toMatchObject({ resolved: true, otherNodes: ['node-old', 'node-z'] });
  });

  it('names no other Node when it is the only one on its machine', async () => {
    const { deps } = world({
      others: [aNode('node-b', { providerId: 'aws:///us-east-1a/i-0fffffffffffffff0' })],
    });
    const { observation } = await observe(deps, 'node-a', 'lab', OPTIONS);
    expect(observation.instance).toMatchObject({ resolved: true, otherNodes: [] });
  });

  it('takes ownership, power and identity from one provider read, and leaves the disks unasked', async () => {
    let reads = 0;
    const { deps } = world({
      inspect: async () => {
        reads += 1;
        return INSPECTION;
      },
    });
    const { observation } = await observe(deps, 'node-a', 'lab', OPTIONS);
    expect(reads).toBe(1);
    expect(observation.instance).toEqual({
      resolved: true,
      ref: { provider: 'aws', instanceId: INSTANCE, zone: 'us-east-1a' },
      ownership: { ok: true, value: INSPECTION.ownership },
      power: { ok: true, value: INSPECTION.power },
      identity: { ok: true, value: INSPECTION.identity },
      otherNodes: [],
      disks: null,
    });
  });

  it('turns a provider failure into a fault value for each part, keeping its name, words and throttling', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), {
      name: 'RequestLimitExceeded',
      throttled: true,
    });
    const { deps } = world({ inspect: async () => Promise.reject(throttled) });
    const { observation } = await observe(deps, 'node-a', 'lab', OPTIONS);
    const fault = {
      ok: false,
      error: { name: 'RequestLimitExceeded', message: 'Rate exceeded', throttled: true },
    };
    expect(observation.instance).toMatchObject({
      resolved: true,
      ownership: fault,
      power: fault,
      identity: fault,
    });

    const plain = world({ inspect: async () => Promise.reject(new TypeError('socket hang up')) });
    const read = await observe(plain.deps, 'node-a', 'lab', OPTIONS);
    expect(read.observation.instance).toMatchObject({
      power: { ok: false, error: { name: 'TypeError', message: 'socket hang up' } },
    });
    expect(
      (read.observation.instance as unknown as { power: { error: Record<string, unknown> } }).power.error,
    ).not.toHaveProperty('throttled');
  });

  it('gives the one provider read and the disk read the step budget’s signal', async () => {
    const signals: unknown[] = [];
    const { deps, fencer } = world({
      inspect: async () => INSPECTION,
    });
    const disk = { volumeId: 'vol-0123456789abcdef0', device: '/dev/xvdba' };
    Object.assign(fencer, {
      inspect: async (_ref: unknown, cluster: unknown, options: { signal?: unknown }) => {
        signals.push(['inspect', cluster, options.signal]);
        return INSPECTION;
      },
      attachedDisks: async (_ref: unknown, options: { signal?: unknown }) => {
        signals.push(['attachedDisks', options.signal]);
        return [disk];
      },
    });

    const { observation } = await observe(deps, 'node-a', 'lab', { ...OPTIONS, withDisks: true });

    expect(signals).toHaveLength(2);
    expect(signals[0]).toEqual(['inspect', 'lab', expect.any(AbortSignal)]);
    expect(signals[1]).toEqual(['attachedDisks', expect.any(AbortSignal)]);
    expect(observation.instance).toMatchObject({ disks: { ok: true, value: [disk] } });
  });

  it('words a provider that rejects with nothing at all as a fault too', async () => {
    const { deps } = world({ inspect: async () => Promise.reject(undefined) });
    const { observation } = await observe(deps, 'node-a', 'lab', OPTIONS);
    expect(observation.instance).toMatchObject({
      power: { ok: false, error: { name: 'Error', message: 'undefined' } },
    });
  });

  it('does not resolve a node without a providerID, one no provider handles, or one its provider cannot parse', async () => {
    const cases: [Partial<NodeView>, string, RegExp][] = [
      [{ providerId: undefined }, 'missing', /spec\.providerID is empty/],
      [
        { providerId: 'gce://p/z/vm-1' },
        'unknown-provider',
        /no configured provider handles providerID "gce:\/\/p\/z\/vm-1"/,
      ],
      [{ providerId: 'aws:///us-east-1a/not-an-instance' }, 'unparseable', /cannot use providerID/],
    ];
    for (const [overrides, problem, detail] of cases) {
      const { deps } = world({ target: aNode('node-a', overrides) });
      const { observation, fencer, ref } = await observe(deps, 'node-a', 'lab', OPTIONS);
      expect(observation.instance).toMatchObject({ resolved: false, problem });
      expect((observation.instance as { detail: string }).detail).toMatch(detail);
      expect(ref).toBeNull();
      expect(fencer === null).toBe(problem !== 'unparseable');
    }
  });

  it('lets an error that is not about the providerID escape, instead of calling it unparseable', async () => {
    const { deps } = world();
    const broken = {
      ...awsFencer(async () => INSPECTION),
      parseProviderId: () => {
        throw new RangeError('a bug');
      },
    } as unknown as ComputeFencer;
    (deps as { compute: unknown }).compute = { forProviderId: () => broken };
    await expect(observe(deps, 'node-a', 'lab', OPTIONS)).rejects.toThrow(RangeError);
  });

  it('observes no machine for a node that does not exist', async () => {
    const { deps } = world({ target: null });
    const { observation, fencer, ref } = await observe(deps, 'node-a', 'lab', OPTIONS);
    expect(observation.node).toBeNull();
    expect(observation.instance).toBeNull();
    expect(observation.storage).toBeNull();
    expect([fencer, ref]).toEqual([null, null]);
  });
});

describe('observing the cluster around a node', () => {
  it('counts every node, names the unhealthy ones, and the fencings in flight on other nodes only', async () => {
    const claim = (node: string): FencingClaim => ({ node, runId: `run-${node}`, renewedAt: READ_AT });
    const { deps } = world({
      others: [
        aNode('node-b', { ready: 'True' }),
        aNode('node-c', { ready: 'False' }),
        aNode('node-d', { ready: 'Missing' }),
      ],
      claims: [claim('node-a'), claim('node-c')],
    });

    const { observation } = await observe(deps, 'node-a', 'lab', OPTIONS);

    expect(observation.cluster).toEqual({
      totalNodes: 4,
      unhealthyNodes: ['node-a', 'node-c', 'node-d'],
      fencingsInFlight: ['node-c'],
      maxInFlight: 3,
      serverVersion: { major: 1, minor: 36 },
    });
    expect(observation.observedAt).toBe(READ_AT);
    expect(observation.node).toMatchObject({ bootId: null, csiNodeIds: [] });
  });

  it('reads the node again for the check right before acting, and keeps the rest of the observation', async () => {
    const { deps, nodeReads } = world();
    const first = await observe(deps, 'node-a', 'lab', OPTIONS);
    const again = await withFreshNode(deps, first, 'node-a');
    expect(nodeReads()).toBe(2);
    expect(again.observation.cluster).toBe(first.observation.cluster);
    expect(again.observation.node).not.toBe(first.observation.node);
    expect(again.observation.node).toEqual(first.observation.node);
    expect(again.fencer).toBe(first.fencer);
  });
});

describe('observing what ties volumes to the node', () => {
  const pod = (name: string, overrides: Partial<PodView> = {}): PodView => ({
    namespace: 'db',
    name,
    uid: `uid-${name}`,
    nodeName: 'node-a',
    phase: 'Running',
    claimNames: [`data-${name}`],
    toleratesEverything: false,
    toleratesOutOfService: false,
    ...overrides,
  });
  const va = (name: string, overrides: Partial<VolumeAttachmentView> = {}): VolumeAttachmentView => ({
    name,
    uid: `uid-${name}`,
    nodeName: 'node-a',
    attacher: 'ebs.csi.aws.com',
    persistentVolumeName: `pv-${name}`,
    attached: true,
    finalizers: [],
    createdAt: READ_AT,
    ...overrides,
  });

  it('keeps each pod’s identity, whether it is terminating, its claims and whether it tolerates the taint', async () => {
    const { deps } = world({
      pods: [
        pod('db-0', { deletionTimestamp: READ_AT, toleratesOutOfService: true }),
        pod('db-1', { claimNames: [] }),
      ],
    });
    const { observation } = await observe(deps, 'node-a', 'lab', OPTIONS);
    expect(observation.workload.pods).toEqual([
      {
        namespace: 'db',
        name: 'db-0',
        uid: 'uid-db-0',
        terminating: true,
        claimNames: ['data-db-0'],
        toleratesOutOfService: true,
      },
      {
        namespace: 'db',
        name: 'db-1',
        uid: 'uid-db-1',
        terminating: false,
        claimNames: [],
        toleratesOutOfService: false,
      },
    ]);
  });

  it('keeps each VolumeAttachment’s facts, absent ones as null, and tells a network image from a disk', async () => {
    const { deps, verified } = world({
      withCeph: true,
      vas: [
        va('csi-a', {
          deletionTimestamp: READ_AT,
          attachError: { message: 'attach failed' },
          detachError: { message: 'detach failed', time: READ_AT },
          csiNodeId: INSTANCE,
        }),
        va('csi-b', { attacher: '', persistentVolumeName: undefined, attached: false }),
        va('csi-c', { attacher: 'rbd.csi.ceph.com' }),
        va('csi-elsewhere', { nodeName: 'node-b' }),
      ],
    });

    const { observation } = await observe(deps, 'node-a', 'lab', OPTIONS);

    expect(observation.workload.volumeAttachments).toEqual([
      {
        name: 'csi-a',
        uid: 'uid-csi-a',
        persistentVolume: 'pv-csi-a',
        attached: true,
        deleting: true,
        attachError: 'attach failed',
        detachError: 'detach failed',
        attacher: 'ebs.csi.aws.com',
        csiNodeId: INSTANCE,
        image: false,
      },
      {
        name: 'csi-b',
        uid: 'uid-csi-b',
        persistentVolume: null,
        attached: false,
        deleting: false,
        attachError: null,
        detachError: null,
        attacher: null,
        csiNodeId: null,
        image: false,
      },
      expect.objectContaining({ name: 'csi-c', attacher: 'rbd.csi.ceph.com', image: true }),
    ]);
    // The attached image is why the storage cluster is asked about the node's addresses.
    expect(observation.storage?.storage).toBe('ceph-rbd');
    expect(verified).toEqual([{ node: 'node-a', addresses: ['10.0.1.23'], declared: [] }]);
  });

  it('asks the storage cluster nothing for a node with only disks, no record of a blocklist and no storage step', async () => {
    const { deps, verified } = world({ withCeph: true, vas: [va('csi-a')] });
    const { observation } = await observe(deps, 'node-a', 'lab', OPTIONS);
    expect(observation.storage).toBeNull();
    expect(verified).toEqual([]);
  });

  it('asks the storage cluster when the step needs it, or the fence record names blocklist entries to lift', async () => {
    const asked = world({ withCeph: true });
    await observe(asked.deps, 'node-a', 'lab', { ...OPTIONS, withStorage: true });
    expect(asked.verified).toHaveLength(1);

    const record = {
      runId: 'run-1',
      fencedAt: '2026-11-29T10:00:00.000Z',
      instanceId: INSTANCE,
      proof: 'stopped',
      taint: {
        key: 'node.kubernetes.io/out-of-service',
        value: 'nodeshutdown',
        effect: 'NoExecute',
        timeAdded: '2026-11-29T10:00:00Z',
      },
      blocklist: ['10.0.1.23:0/0'],
    };
    const recorded = world({
      withCeph: true,
      target: aNode('node-a', { annotations: { 'kube-fencer.io/fence-record': JSON.stringify(record) } }),
    });
    const { observation } = await observe(recorded.deps, 'node-a', 'lab', OPTIONS);
    expect(recorded.verified).toHaveLength(1);
    expect(observation.storage?.storage).toBe('ceph-rbd');

    const emptyList = world({
      withCeph: true,
      target: aNode('node-a', {
        annotations: { 'kube-fencer.io/fence-record': JSON.stringify({ ...record, blocklist: [] }) },
      }),
    });
    await observe(emptyList.deps, 'node-a', 'lab', OPTIONS);
    expect(emptyList.verified).toEqual([]);
  });

  it('reads only a CSI volume name’s driver as a driver', async () => {
    const image = 'kubernetes.io/csi/rbd.csi.ceph.com^0001-0024-fsid-0000000000000001-db';
    const cases: [string, boolean][] = [
      [image, true],
      [`${image}^snapshot`, true],
      [`x-${image}`, false],
      ['kubernetes.io/csi/^rbd.csi.ceph.com^handle', false],
      ['kubernetes.io/csi/rbd.csi.ceph.com', false],
    ];
    for (const [name, asked] of cases) {
      const w = world({ withCeph: true, target: aNode('node-a', { volumesInUse: [name] }) });
      const { observation } = await observe(w.deps, 'node-a', 'lab', OPTIONS);
      expect(observation.workload.imagesInUse, name).toEqual(asked ? [name] : undefined);
      expect(w.verified.length, name).toBe(asked ? 1 : 0);
    }
  });
});

describe('a fence record, field by field', () => {
  const TAINT = {
    key: 'node.kubernetes.io/out-of-service',
    value: 'nodeshutdown',
    effect: 'NoExecute',
    timeAdded: '2026-11-29T10:00:00Z',
  };
  const RECORD = {
    runId: 'run-1',
    fencedAt: '2026-11-29T10:00:00.000Z',
    instanceId: INSTANCE,
    proof: 'stopped',
    taint: TAINT,
  };
  const parse = (record: unknown) =>
    parseFenceRecord({ 'kube-fencer.io/fence-record': JSON.stringify(record) });

  it('is no record when any field that identifies it or its taint is missing or of the wrong type', () => {
    expect(parse(null)).toBeNull();
    expect(parse({ ...RECORD, runId: 7 })).toBeNull();
    expect(parse({ ...RECORD, fencedAt: undefined })).toBeNull();
    expect(parse({ ...RECORD, taint: null })).toBeNull();
    expect(parse({ ...RECORD, taint: 'node.kubernetes.io/out-of-service' })).toBeNull();
    expect(parse({ ...RECORD, taint: { ...TAINT, key: undefined } })).toBeNull();
    expect(parse({ ...RECORD, taint: { ...TAINT, value: 5 } })).toBeNull();
    expect(parse({ ...RECORD, taint: { ...TAINT, effect: null } })).toBeNull();
    expect(parse({ ...RECORD, taint: { ...TAINT, timeAdded: null } })).toBeNull();
  });

  it('keeps a taint without a value, and fills what only describes the fence', () => {
    const { instanceId: _, proof: __, ...bare } = RECORD;
    expect(parse({ ...bare, taint: { ...TAINT, value: null } })).toEqual({
      ...bare,
      instanceId: '',
      proof: '',
      taint: { ...TAINT, value: null },
    });
  });

  it('keeps the blocklist only when every entry is text, and the bootID only when text or null', () => {
    expect(parse({ ...RECORD, blocklist: ['10.0.1.23:0/0', '10.1.0.0/24'] })?.blocklist).toEqual([
      '10.0.1.23:0/0',
      '10.1.0.0/24',
    ]);
    expect(parse({ ...RECORD, blocklist: ['10.0.1.23:0/0', 7] })).not.toHaveProperty('blocklist');
    expect(parse({ ...RECORD, blocklist: '10.0.1.23:0/0' })).not.toHaveProperty('blocklist');
    expect(parse({ ...RECORD, bootId: 'b-1' })?.bootId).toBe('b-1');
    expect(parse({ ...RECORD, bootId: null })).toHaveProperty('bootId', null);
    expect(parse({ ...RECORD, bootId: 3 })).not.toHaveProperty('bootId');
    expect(parse(RECORD)).not.toHaveProperty('bootId');
    // Nothing else of the annotation is carried over.
    expect(parse({ ...RECORD, extra: 'x' })).toEqual(RECORD);
  });
});

describe('the storage fence’s scope: what else its entries would reach', () => {
  const declaring = (value: string) =>
    aNode('node-a', { annotations: { 'kube-fencer.io/storage-addresses': value } });
  const storageOf = async (w: World) =>
    (await observe(world({ withCeph: true, ...w }).deps, 'node-a', 'lab', { ...OPTIONS, withStorage: true }))
      .observation.storage;

  it('passes the declared storage addresses to the storage fencer with the InternalIPs', async () => {
    const w = world({ withCeph: true, target: declaring('10.5.0.0/24, fd00::5') });
    const { observation } = await observe(w.deps, 'node-a', 'lab', { ...OPTIONS, withStorage: true });
    expect(w.verified).toEqual([
      { node: 'node-a', addresses: ['10.0.1.23'], declared: ['10.5.0.0/24', 'fd00::5'] },
    ]);
    expect(observation.storage).toMatchObject({
      declared: ['10.5.0.0/24', 'fd00::5'],
      declaredError: null,
      conflicts: [],
    });
  });

  it('keeps a malformed annotation as its error, and fences by it nothing', async () => {
    const storage = await storageOf({ target: declaring('10.5.0.0/16') });
    expect(storage?.declared).toEqual([]);
    expect(storage?.declaredError).toBe(
      'annotation kube-fencer.io/storage-addresses="10.5.0.0/16": 10.5.0.0/16 is wider than /24',
    );
  });

  it('names another Node whose address of any type lies in a declared range, compared as ranges', async () => {
    const other = aNode('node-b', {
      addresses: [
        { type: 'Hostname', address: 'node-b' },
        { type: 'ExternalIP', address: '10.5.0.77' },
      ],
    });
    const storage = await storageOf({ target: declaring('10.5.0.0/24'), others: [other] });
    expect(storage?.otherNodesSharingAddresses).toEqual(['node-b']);
    expect(storage?.conflicts).toEqual([
      { kind: 'other-node', entry: '10.5.0.0/24', party: 'node-b', address: '10.5.0.77' },
    ]);
  });

  it('names a storage daemon whose address a declared range covers', async () => {
    const storage = await storageOf({ target: declaring('10.99.0.0/24') });
    expect(storage?.otherNodesSharingAddresses).toEqual([]);
    expect(storage?.conflicts).toEqual([
      { kind: 'storage-daemon', entry: '10.99.0.0/24', party: 'mon.a', address: '10.99.0.1' },
    ]);
  });

  it('names no one for a node whose entries cover only its own addresses', async () => {
    const other = aNode('node-b', { addresses: [{ type: 'InternalIP', address: '10.0.1.24' }] });
    const storage = await storageOf({ others: [other] });
    expect(storage).toMatchObject({ otherNodesSharingAddresses: [], conflicts: [] });
  });
});
