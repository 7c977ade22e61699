/**
 * What observe() hands decide() about the control plane (SAFETY.md rule 4): every common role label,
 * the operator's own labels, and the static etcd/kube-apiserver pods among the node's pods; a sign seen
 * by the step stays one for the re-read right before acting.
 */
import { describe, expect, it } from 'vitest';
import { observe, withFreshNode } from '../../../../lib/app/fence/observe.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type { Cluster, NodeView, PodView } from '../../../../lib/ports/cluster.js';
import { oneNodeCluster } from '../support/ports.js';

const READ_AT = '2026-11-29T10:05:00.000Z';
const options = { claimTtlSeconds: 300, withDisks: false, providerBudgetMs: 1000 };

const aNode = (labels: Record<string, string> = {}): NodeView => ({
  name: 'cp-1',
  uid: 'uid-cp-1',
  resourceVersion: '42',
  createdAt: '2026-11-29T09:00:00.000Z',
  addresses: [{ type: 'InternalIP', address: '10.0.1.5' }],
  ready: 'Unknown',
  lastHeartbeat: '2026-11-29T09:59:00.000Z',
  providerId: undefined,
  unschedulable: false,
  labels,
  annotations: {},
  taints: [],
});

const aPod = (overrides: Partial<PodView>): PodView => ({
  namespace: 'kube-system',
  name: 'coredns-1',
  uid: 'uid-pod',
  phase: 'Running',
  claimNames: [],
  toleratesEverything: false,
  toleratesOutOfService: false,
  ...overrides,
});

function depsFor(node: NodeView, pods: readonly PodView[], controlPlaneLabels?: readonly string[]) {
  const cluster = oneNodeCluster(node, READ_AT, { pods });
  return {
    cluster: cluster as Cluster,
    compute: { forProviderId: () => null },
    storage: [],
    clock: { now: () => new Date(READ_AT) },
    log: { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} },
    metrics: new InMemoryMetrics(),
    ...(controlPlaneLabels ? { controlPlaneLabels } : {}),
  } as unknown as FencerDeps;
}

describe('observing a control-plane node', () => {
  it.each([
    'node-role.kubernetes.io/master',
    'node-role.kubernetes.io/controlplane',
    'node-role.kubernetes.io/etcd',
  ])('sees a node labelled only %s as the control plane', async (key) => {
    const { observation } = await observe(depsFor(aNode({ [key]: 'true' }), []), 'cp-1', 'prod', options);
    expect(observation.node).toMatchObject({ controlPlane: true, controlPlaneSignals: [`label ${key}`] });
  });

  it('sees a label the operator configured, and a worker without one as a worker', async () => {
    const labels = { 'example.com/role': 'etcd' };
    const configured = await observe(
      depsFor(aNode(labels), [], ['example.com/role']),
      'cp-1',
      'prod',
      options,
    );
    const plain = await observe(depsFor(aNode(labels), []), 'cp-1', 'prod', options);
    expect(configured.observation.node?.controlPlane).toBe(true);
    expect(plain.observation.node?.controlPlane).toBe(false);
  });

  it('sees an unlabelled node running a static etcd pod as the control plane, and keeps that for the re-read', async () => {
    const etcd = aPod({ name: 'etcd-cp-1', mirror: true, component: 'etcd' });
    const deps = depsFor(aNode(), [etcd, aPod({})]);

    const observed = await observe(deps, 'cp-1', 'prod', options);
    const reread = await withFreshNode(deps, observed, 'cp-1');

    expect(observed.observation.node).toMatchObject({
      controlPlane: true,
      controlPlaneSignals: ['static etcd pod kube-system/etcd-cp-1'],
    });
    expect(reread.observation.node).toMatchObject({
      controlPlane: true,
      controlPlaneSignals: ['static etcd pod kube-system/etcd-cp-1'],
    });
  });

  it('keeps on the re-read both the signs of the node read again and those the step saw, each once', async () => {
    const key = 'node-role.kubernetes.io/control-plane';
    const etcd = aPod({ name: 'etcd-cp-1', mirror: true, component: 'etcd' });
    const deps = depsFor(aNode({ [key]: '' }), [etcd]);

    const observed = await observe(deps, 'cp-1', 'prod', options);
    const reread = await withFreshNode(deps, observed, 'cp-1');

    expect(reread.observation.node?.controlPlaneSignals).toEqual([
      `label ${key}`,
      'static etcd pod kube-system/etcd-cp-1',
    ]);
  });

  it('sees on the re-read a node the step did not find, with no sign it did not see', async () => {
    let reads = 0;
    const node = aNode();
    const deps = depsFor(node, []);
    const cluster = deps.cluster as Cluster;
    const getNode = cluster.getNode;
    // Not there when the step looked; there when it reads the node again.
    cluster.getNode = async (name) => (reads++ === 0 ? null : getNode(name));

    const observed = await observe(deps, 'cp-1', 'prod', options);
    expect(observed.observation.node).toBeNull();
    const reread = await withFreshNode(deps, observed, 'cp-1');

    expect(reread.observation.node).toMatchObject({ name: 'cp-1', controlPlane: false });
    expect(reread.observation.node?.controlPlaneSignals).toBeUndefined();
  });

  it('does not take a pod that merely carries the name for a static pod', async () => {
    const impostor = aPod({ name: 'etcd-cp-1' });
    const { observation } = await observe(depsFor(aNode(), [impostor]), 'cp-1', 'prod', options);
    expect(observation.node?.controlPlane).toBe(false);
  });
});
