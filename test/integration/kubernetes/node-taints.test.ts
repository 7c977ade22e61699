/**
 * Taints and annotations by read-modify-write against the lab's API server, on a node the
 * node-lifecycle controller is tainting at the same time.
 */
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../lab/lab.js';
import { KubeCluster } from '../../../lib/adapters/kubernetes/kube-cluster.js';
import { FENCER_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../../../lib/domain/node-marks.js';
import type { Taint } from '../../../lib/ports/cluster.js';
import { MERGE_PATCH, UNREACHABLE, waitUntilUnreachable } from './support.js';

const OTHER_TAINT = { key: 'example.com/dedicated', value: 'db', effect: 'NoSchedule' } as const;
/** The fencer's taint, exact: with the timeAdded its record names. */
const OURS: Taint = { ...OUT_OF_SERVICE_TAINT, timeAdded: '2026-03-01T10:10:00Z' };
const STALE_TAINT = { key: 'example.com/stale', effect: 'NoExecute' } as const;
const RECORD = JSON.stringify({
  runId: 'run-1',
  fencedAt: '2026-03-01T10:10:00Z',
  instanceId: 'i-0',
  proof: 'stopped',
});
const real = { dryRun: false } as const;
const dryRun = { dryRun: true } as const;

let lab: Lab;
let cluster: KubeCluster;
let core: CoreV1Api;

const readNode = (name: string): Promise<V1Node> => core.readNode({ name });
const taintKeys = (node: V1Node): string[] =>
  (node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();

beforeAll(async () => {
  lab = await startLab({ nodes: 3 });
  cluster = new KubeCluster(lab.endpoint);
  core = lab.kubeConfig.makeApiClient(CoreV1Api);
  await lab.cut('node-b');
  await core.patchNode({ name: 'node-b', body: { spec: { taints: [OTHER_TAINT] } } }, MERGE_PATCH);
  await waitUntilUnreachable(lab.kubeConfig, 'node-b');
});

afterAll(async () => {
  await lab?.stop();
});

describe('addTaint', () => {
  it("adds the out-of-service taint with its record, keeping the controller's taints and others", async () => {
    // Act
    const outcome = await cluster.addTaint('node-b', OURS, { [FENCER_ANNOTATION.fenceRecord]: RECORD }, real);

    // Assess
    expect(outcome).toBe('added');
    const node = await readNode('node-b');
    expect(taintKeys(node)).toStrictEqual(
      [
        `${OUT_OF_SERVICE_TAINT.key}:NoExecute`,
        `${OTHER_TAINT.key}:NoSchedule`,
        `${UNREACHABLE}:NoExecute`,
        `${UNREACHABLE}:NoSchedule`,
      ].sort(),
    );
    expect(node.spec?.taints?.find((t) => t.key === OUT_OF_SERVICE_TAINT.key)).toMatchObject({
      value: 'nodeshutdown',
      timeAdded: new Date(OURS.timeAdded ?? ''),
    });
    expect(node.metadata?.annotations?.[FENCER_ANNOTATION.fenceRecord]).toBe(RECORD);
  });

  it('reads the exact taint back as written: timeAdded survives the round trip, so ownership can match', async () => {
    // Act
    const view = await cluster.getNode('node-b');

    // Assess
    expect(view?.taints.find((t) => t.key === OUT_OF_SERVICE_TAINT.key)).toStrictEqual(OURS);
  });

  it('reports already-present the second time and writes nothing', async () => {
    // Prepare
    const before = await readNode('node-b');

    // Act
    const outcome = await cluster.addTaint(
      'node-b',
      { ...OURS, timeAdded: '2026-03-01T11:00:00Z' },
      { [FENCER_ANNOTATION.fenceRecord]: 'other' },
      real,
    );

    // Assess
    expect(outcome).toBe('already-present');
    const after = await readNode('node-b');
    expect(after.metadata?.annotations?.[FENCER_ANNOTATION.fenceRecord]).toBe(RECORD);
    expect(after.spec?.taints).toStrictEqual(before.spec?.taints);
  });

  it('loses no taint when several fencers add different taints to one node at once', async () => {
    // Prepare: separate clients, as separate processes would be.
    const keys = ['a', 'b', 'c', 'd', 'e'].map((k) => `example.com/concurrent-${k}`);
    const writers = keys.map(() => new KubeCluster(lab.endpoint));

    // Act
    const outcomes = await Promise.all(
      keys.map((key, i) =>
        writers[i]?.addTaint('node-c', { key, effect: 'NoSchedule' }, { [key]: 'yes' }, real),
      ),
    );

    // Assess
    expect(outcomes).toStrictEqual(keys.map(() => 'added'));
    const node = await readNode('node-c');
    expect(taintKeys(node)).toStrictEqual(expect.arrayContaining(keys.map((k) => `${k}:NoSchedule`)));
    expect(node.metadata?.annotations).toMatchObject(Object.fromEntries(keys.map((k) => [k, 'yes'])));
  });

  it('fails with a KubernetesApiError for a node that does not exist', async () => {
    // Act
    const add = cluster.addTaint('no-such-node', OUT_OF_SERVICE_TAINT, {}, real);

    // Assess
    await expect(add).rejects.toMatchObject({ name: 'KubernetesApiError', statusCode: 404 });
    await expect(add).rejects.toThrow(/node\/no-such-node/);
  });
});

describe('conditional on the node as observed', () => {
  it('writes when the node is still the version observed', async () => {
    // Prepare: node-b is cut, so no kubelet heartbeat changes it between the read and the write.
    const observed = await cluster.getNode('node-b');
    const taint: Taint = { key: 'example.com/conditional', effect: 'NoSchedule' };

    // Act
    const added = await cluster.addTaint(
      'node-b',
      taint,
      {},
      { ...real, expectedResourceVersion: observed?.resourceVersion },
    );
    const current = await cluster.getNode('node-b');
    const removed = await cluster.removeTaint('node-b', taint, [], {
      ...real,
      expectedResourceVersion: current?.resourceVersion,
    });

    // Assess
    expect([added, removed]).toStrictEqual(['added', 'removed']);
  });

  it('refuses with a ConflictError, writing nothing, when the node changed since', async () => {
    // Prepare
    const observed = await cluster.getNode('node-b');
    await cluster.annotateNode('node-b', { 'example.com/changed-meanwhile': 'yes' }, real);

    // Act
    const add = cluster.addTaint(
      'node-b',
      STALE_TAINT,
      { 'example.com/stale': 'x' },
      {
        ...real,
        expectedResourceVersion: observed?.resourceVersion,
      },
    );

    // Assess
    await expect(add).rejects.toMatchObject({ name: 'ConflictError' });
    const node = await readNode('node-b');
    expect(taintKeys(node)).not.toContain(`${STALE_TAINT.key}:NoExecute`);
    expect(node.metadata?.annotations?.['example.com/stale']).toBeUndefined();
  });
});

describe('removeTaint', () => {
  it('removes exactly that taint, and its annotations', async () => {
    // Prepare
    const taint: Taint = {
      key: 'example.com/remove-me',
      effect: 'NoExecute',
      timeAdded: '2026-03-01T10:00:00Z',
    };
    await cluster.addTaint('node-c', taint, { 'example.com/record': 'x' }, real);
    const before = taintKeys(await readNode('node-c'));

    // Act
    const outcome = await cluster.removeTaint('node-c', taint, ['example.com/record'], real);

    // Assess
    expect(outcome).toBe('removed');
    const node = await readNode('node-c');
    expect(taintKeys(node)).toStrictEqual(before.filter((k) => !k.startsWith(taint.key)));
    expect(node.metadata?.annotations?.['example.com/record']).toBeUndefined();
  });

  it('leaves an out-of-service taint that is not exactly the one named (another value or time)', async () => {
    // Prepare: someone else's taint of the same key, on another node.
    const theirs: Taint = {
      ...OUT_OF_SERVICE_TAINT,
      value: 'maintenance',
      timeAdded: '2026-03-01T10:20:00Z',
    };
    await cluster.addTaint('node-c', theirs, {}, real);

    // Act
    const outcomes = [
      await cluster.removeTaint('node-c', OURS, [], real),
      await cluster.removeTaint('node-c', { ...theirs, timeAdded: '2026-03-01T10:20:01Z' }, [], real),
    ];

    // Assess
    expect(outcomes).toStrictEqual(['absent', 'absent']);
    expect(taintKeys(await readNode('node-c'))).toContain(`${OUT_OF_SERVICE_TAINT.key}:NoExecute`);
    expect(await cluster.removeTaint('node-c', theirs, [], real)).toBe('removed');
  });

  it("leaves the controller's taints and others in place on a cut node", async () => {
    // Act
    const outcome = await cluster.removeTaint('node-b', OURS, [FENCER_ANNOTATION.fenceRecord], real);

    // Assess
    expect(outcome).toBe('removed');
    const node = await readNode('node-b');
    expect(taintKeys(node)).toStrictEqual(
      [`${OTHER_TAINT.key}:NoSchedule`, `${UNREACHABLE}:NoExecute`, `${UNREACHABLE}:NoSchedule`].sort(),
    );
    expect(node.metadata?.annotations?.[FENCER_ANNOTATION.fenceRecord]).toBeUndefined();
  });

  it('reports absent when there is nothing to remove, or no node at all', async () => {
    // Act
    const again = await cluster.removeTaint('node-b', OURS, [FENCER_ANNOTATION.fenceRecord], real);
    const noNode = await cluster.removeTaint('no-such-node', OURS, [], real);

    // Assess
    expect([again, noNode]).toStrictEqual(['absent', 'absent']);
  });
});

describe('dry run', () => {
  it('changes nothing, while answering what would have happened', async () => {
    // Prepare
    const before = await readNode('node-a');

    // Act
    const added = await cluster.addTaint(
      'node-a',
      OUT_OF_SERVICE_TAINT,
      { [FENCER_ANNOTATION.fenceRecord]: RECORD },
      dryRun,
    );
    await cluster.annotateNode('node-a', { 'example.com/dry': 'run' }, dryRun);
    const unreachable = (await cluster.getNode('node-b'))?.taints.find(
      (t) => t.key === UNREACHABLE && t.effect === 'NoExecute',
    );
    const removed = await cluster.removeTaint(
      'node-b',
      unreachable ?? { key: UNREACHABLE, effect: 'NoExecute' },
      [],
      dryRun,
    );

    // Assess
    expect([added, removed]).toStrictEqual(['added', 'removed']);
    const after = await readNode('node-a');
    expect(after.spec?.taints).toStrictEqual(before.spec?.taints);
    expect(after.metadata?.annotations).toStrictEqual(before.metadata?.annotations);
    expect(taintKeys(await readNode('node-b'))).toContain(`${UNREACHABLE}:NoExecute`);
  });
});

describe('annotateNode', () => {
  it('sets and deletes annotations, leaving the others', async () => {
    // Prepare
    await cluster.annotateNode('node-a', { 'example.com/keep': '1', 'example.com/drop': '2' }, real);

    // Act
    await cluster.annotateNode('node-a', { 'example.com/drop': null, 'example.com/new': '3' }, real);

    // Assess
    const annotations = (await readNode('node-a')).metadata?.annotations ?? {};
    expect(annotations).toMatchObject({ 'example.com/keep': '1', 'example.com/new': '3' });
    expect(annotations['example.com/drop']).toBeUndefined();
    expect(annotations['volumes.kubernetes.io/controller-managed-attach-detach']).toBe('true');
  });
});
