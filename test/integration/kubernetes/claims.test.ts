/** Fencing claims in the shared coordination Lease, against the lab's API server, under concurrency. */
import { setTimeout as sleep } from 'node:timers/promises';
import { CoordinationV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../lab/lab.js';
import { CLAIMS_ANNOTATION } from '../../../lib/adapters/kubernetes/claims.js';
import { KubeCluster, type KubeClusterProps } from '../../../lib/adapters/kubernetes/kube-cluster.js';
import type { ClaimResult } from '../../../lib/ports/cluster.js';
import { unique } from './support.js';

const TEN_MINUTES = 600;

let lab: Lab;

beforeAll(async () => {
  lab = await startLab({ nodes: 2 });
});

afterAll(async () => {
  await lab?.stop();
});

/** Fencers sharing one Lease of their own, so that tests never see each other's claims. */
const fencers = (count: number, props: KubeClusterProps = {}): KubeCluster[] => {
  const leaseName = unique('claims');
  return Array.from({ length: count }, () => new KubeCluster(lab.endpoint, { leaseName, ...props }));
};

const granted = (results: readonly ClaimResult[]): number => results.filter((r) => r.granted).length;

describe('claimFencing', () => {
  it.each([
    [1, 4],
    [2, 5],
  ])('grants exactly %i of %i concurrent claims for different nodes', async (maxInFlight, runs) => {
    // Prepare
    const clusters = fencers(runs);

    // Act
    const results = await Promise.all(
      clusters.map((c, i) =>
        c.claimFencing(`node-${i}`, `run-${i}`, { maxInFlight, ttlSeconds: TEN_MINUTES }),
      ),
    );

    // Assess
    expect(granted(results)).toBe(maxInFlight);
    for (const refused of results.filter((r) => !r.granted)) {
      expect(refused).toMatchObject({ granted: false, reason: 'in-flight-limit' });
    }
  });

  it('grants one node to one run only when two runs race for it', async () => {
    // Prepare
    const [first, second] = fencers(2);

    // Act
    const results = await Promise.all([
      first?.claimFencing('node-x', 'run-1', { maxInFlight: 5, ttlSeconds: TEN_MINUTES }),
      second?.claimFencing('node-x', 'run-2', { maxInFlight: 5, ttlSeconds: TEN_MINUTES }),
    ]);

    // Assess
    expect(granted(results as ClaimResult[])).toBe(1);
    expect(results.find((r) => r && !r.granted)).toMatchObject({ reason: 'claimed-by-other' });
  });

  it('creates the Lease on first use and keeps the claims in its annotation', async () => {
    // Prepare
    const leaseName = unique('claims');
    const cluster = new KubeCluster(lab.endpoint, { leaseName });

    // Act
    await cluster.claimFencing('node-b', 'run-1', { maxInFlight: 1, ttlSeconds: TEN_MINUTES });

    // Assess
    const lease = await lab.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: leaseName, namespace: 'kube-system' });
    const claims = JSON.parse(lease.metadata?.annotations?.[CLAIMS_ANNOTATION] ?? '{}');
    expect(claims).toStrictEqual({ 'node-b': { runId: 'run-1', renewedAt: expect.any(String) } });
  });

  it('renews the claim of the same run, and refuses another run on that node', async () => {
    // Prepare
    const [cluster] = fencers(1);
    const limits = { maxInFlight: 1, ttlSeconds: TEN_MINUTES };
    await cluster?.claimFencing('node-b', 'run-1', limits);

    // Act
    const renewed = await cluster?.claimFencing('node-b', 'run-1', limits);
    const other = await cluster?.claimFencing('node-b', 'run-2', limits);

    // Assess
    expect(renewed).toStrictEqual({ granted: true, inFlight: ['node-b'] });
    expect(other).toStrictEqual({ granted: false, reason: 'claimed-by-other', holder: 'run-1' });
  });

  it('lets a claim that was not renewed within its TTL be taken', async () => {
    // Prepare
    const [cluster] = fencers(1);
    await cluster?.claimFencing('node-a', 'crashed-run', { maxInFlight: 1, ttlSeconds: 1 });
    await sleep(1_500);

    // Act
    const taken = await cluster?.claimFencing('node-b', 'run-2', { maxInFlight: 1, ttlSeconds: 1 });

    // Assess
    expect(taken).toStrictEqual({ granted: true, inFlight: ['node-b'] });
  });

  it('refuses a corrupted claims annotation instead of reading it as nothing in flight', async () => {
    // Prepare
    const leaseName = unique('claims');
    const cluster = new KubeCluster(lab.endpoint, { leaseName });
    await cluster.claimFencing('node-a', 'run-1', { maxInFlight: 1, ttlSeconds: TEN_MINUTES });
    await lab.kubeConfig.makeApiClient(CoordinationV1Api).patchNamespacedLease(
      {
        name: leaseName,
        namespace: 'kube-system',
        body: { metadata: { annotations: { [CLAIMS_ANNOTATION]: '{oops' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

    // Act
    const claim = cluster.claimFencing('node-b', 'run-2', { maxInFlight: 1, ttlSeconds: TEN_MINUTES });

    // Assess
    await expect(claim).rejects.toMatchObject({ name: 'ValidationError' });
  });
});

describe('releaseFencing', () => {
  it("frees the run's slot for another node", async () => {
    // Prepare
    const [cluster] = fencers(1);
    const limits = { maxInFlight: 1, ttlSeconds: TEN_MINUTES };
    await cluster?.claimFencing('node-a', 'run-1', limits);

    // Act
    await cluster?.releaseFencing('node-a', 'run-1');
    const next = await cluster?.claimFencing('node-b', 'run-2', limits);

    // Assess
    expect(next).toStrictEqual({ granted: true, inFlight: ['node-b'] });
  });

  it("never releases another run's claim, and tolerates nothing to release", async () => {
    // Prepare
    const [cluster] = fencers(1);
    const limits = { maxInFlight: 1, ttlSeconds: TEN_MINUTES };
    await cluster?.releaseFencing('node-a', 'run-0');
    await cluster?.claimFencing('node-a', 'run-1', limits);

    // Act
    await cluster?.releaseFencing('node-a', 'run-2');
    const other = await cluster?.claimFencing('node-b', 'run-3', limits);

    // Assess
    expect(other).toStrictEqual({ granted: false, reason: 'in-flight-limit', inFlight: ['node-a'] });
  });
});

describe('listFencingClaims', () => {
  it('lists the live claims by node, and none before any fencer claimed', async () => {
    // Prepare
    const [cluster] = fencers(1);
    const none = await cluster?.listFencingClaims(TEN_MINUTES);
    await cluster?.claimFencing('node-b', 'run-2', { maxInFlight: 3, ttlSeconds: TEN_MINUTES });
    await cluster?.claimFencing('node-a', 'run-1', { maxInFlight: 3, ttlSeconds: TEN_MINUTES });

    // Act
    const claims = await cluster?.listFencingClaims(TEN_MINUTES);
    const afterTtl = await cluster?.listFencingClaims(0);

    // Assess
    expect(none).toStrictEqual([]);
    expect(claims).toStrictEqual([
      { node: 'node-a', runId: 'run-1', renewedAt: expect.any(String) },
      { node: 'node-b', runId: 'run-2', renewedAt: expect.any(String) },
    ]);
    expect(afterTtl).toStrictEqual([]);
  });
});
