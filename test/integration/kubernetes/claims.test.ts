/** Fencing claims in the shared coordination Lease, against the lab's API server, under concurrency. */
import { setTimeout as sleep } from 'node:timers/promises';
import { CoordinationV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../lab/lab.js';
import { CLAIMS_ANNOTATION, MAX_IN_FLIGHT_ANNOTATION } from '../../../lib/adapters/kubernetes/claims.js';
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

/**
 * Fencers sharing one Lease of their own (so that tests never see each other's claims), with the
 * cluster's in-flight limit set on it.
 */
const fencers = async (
  count: number,
  maxInFlight = 1,
  props: KubeClusterProps = {},
): Promise<KubeCluster[]> => {
  const leaseName = unique('claims');
  const all = Array.from({ length: count }, () => new KubeCluster(lab.endpoint, { leaseName, ...props }));
  await all[0]?.setMaxInFlight(maxInFlight);
  return all;
};

const TTL = { ttlSeconds: TEN_MINUTES };

const granted = (results: readonly ClaimResult[]): number => results.filter((r) => r.granted).length;

describe('claimFencing', () => {
  it.each([
    [1, 4],
    [2, 5],
  ])('grants exactly %i of %i concurrent claims for different nodes', async (maxInFlight, runs) => {
    // Prepare
    const clusters = await fencers(runs, maxInFlight);

    // Act
    const results = await Promise.all(clusters.map((c, i) => c.claimFencing(`node-${i}`, `run-${i}`, TTL)));

    // Assess
    expect(granted(results)).toBe(maxInFlight);
    for (const refused of results.filter((r) => !r.granted)) {
      expect(refused).toMatchObject({ granted: false, reason: 'in-flight-limit' });
    }
  });

  it('grants one node to one run only when two runs race for it', async () => {
    // Prepare
    const [first, second] = await fencers(2, 5);

    // Act
    const results = await Promise.all([
      first?.claimFencing('node-x', 'run-1', TTL),
      second?.claimFencing('node-x', 'run-2', TTL),
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
    await cluster.claimFencing('node-b', 'run-1', TTL);

    // Assess
    const lease = await lab.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: leaseName, namespace: 'kube-system' });
    const claims = JSON.parse(lease.metadata?.annotations?.[CLAIMS_ANNOTATION] ?? '{}');
    expect(claims).toStrictEqual({
      'node-b': { runId: 'run-1', renewedAt: expect.any(String), ttlSeconds: TEN_MINUTES },
    });
  });

  it('renews the claim of the same run, and refuses another run on that node', async () => {
    // Prepare
    const [cluster] = await fencers(1);
    await cluster?.claimFencing('node-b', 'run-1', TTL);

    // Act
    const renewed = await cluster?.claimFencing('node-b', 'run-1', TTL);
    const other = await cluster?.claimFencing('node-b', 'run-2', TTL);

    // Assess
    expect(renewed).toStrictEqual({ granted: true, inFlight: ['node-b'] });
    expect(other).toStrictEqual({ granted: false, reason: 'claimed-by-other', holder: 'run-1' });
  });

  it('lets a claim that was not renewed within its TTL (of server time) be taken', async () => {
    // Prepare
    const [cluster] = await fencers(1);
    await cluster?.claimFencing('node-a', 'crashed-run', { ttlSeconds: 1 });
    // The server's clock has one-second resolution: wait two.
    await sleep(2_100);

    // Act
    const taken = await cluster?.claimFencing('node-b', 'run-2', { ttlSeconds: 1 });

    // Assess
    expect(taken).toStrictEqual({ granted: true, inFlight: ['node-b'] });
  });

  it.each([
    ['fast', 10 * 60_000],
    ['slow', -10 * 60_000],
  ])(
    'judges claims on the API server clock: a writer whose clock runs 10 minutes %s changes nothing',
    async (_, skewMs) => {
      // Prepare: an honest fencer holds the only slot.
      const leaseName = unique('claims');
      const honest = new KubeCluster(lab.endpoint, { leaseName });
      const skewed = new KubeCluster(lab.endpoint, { leaseName, now: () => new Date(Date.now() + skewMs) });
      await honest.setMaxInFlight(1);
      await honest.claimFencing('node-a', 'live-run', TTL);

      // Act
      const taken = await skewed.claimFencing('node-b', 'skewed-run', TTL);
      const seen = await skewed.listFencingClaims(TEN_MINUTES);

      // Assess: the live claim stands, and the skewed writer sees it stamped on the server's clock.
      expect(taken).toStrictEqual({ granted: false, reason: 'in-flight-limit', inFlight: ['node-a'] });
      expect(seen.claims.map((c) => c.node)).toStrictEqual(['node-a']);
      const stampedAt = Date.parse(seen.claims[0]?.renewedAt ?? '');
      expect(Math.abs(stampedAt - Date.now())).toBeLessThan(60_000);
    },
  );

  it('refuses a corrupted claims annotation instead of reading it as nothing in flight', async () => {
    // Prepare
    const leaseName = unique('claims');
    const cluster = new KubeCluster(lab.endpoint, { leaseName });
    await cluster.claimFencing('node-a', 'run-1', TTL);
    await lab.kubeConfig.makeApiClient(CoordinationV1Api).patchNamespacedLease(
      {
        name: leaseName,
        namespace: 'kube-system',
        body: { metadata: { annotations: { [CLAIMS_ANNOTATION]: '{oops' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

    // Act
    const claim = cluster.claimFencing('node-b', 'run-2', TTL);

    // Assess
    await expect(claim).rejects.toMatchObject({ name: 'ValidationError' });
  });
});

describe('the in-flight limit', () => {
  it('is the cluster’s: set once on the Lease, every fencer counts against it', async () => {
    // Prepare
    const [first, second, third] = await fencers(3, 2);

    // Act
    const results = [
      await first?.claimFencing('node-a', 'run-1', TTL),
      await second?.claimFencing('node-b', 'run-2', TTL),
      await third?.claimFencing('node-c', 'run-3', TTL),
    ];
    const listed = await third?.listFencingClaims(TEN_MINUTES);

    // Assess
    expect(results.map((r) => r?.granted)).toStrictEqual([true, true, false]);
    expect(listed?.maxInFlight).toBe(2);
  });

  it('is 1 until set, and a malformed value is an error rather than no limit', async () => {
    // Prepare
    const leaseName = unique('claims');
    const cluster = new KubeCluster(lab.endpoint, { leaseName });
    const unset = await cluster.listFencingClaims(TEN_MINUTES);
    await cluster.claimFencing('node-a', 'run-1', TTL);
    await lab.kubeConfig.makeApiClient(CoordinationV1Api).patchNamespacedLease(
      {
        name: leaseName,
        namespace: 'kube-system',
        body: { metadata: { annotations: { [MAX_IN_FLIGHT_ANNOTATION]: 'lots' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

    // Act
    const claim = cluster.claimFencing('node-b', 'run-2', TTL);

    // Assess
    expect(unset.maxInFlight).toBe(1);
    await expect(claim).rejects.toMatchObject({ name: 'ValidationError' });
    await expect(cluster.setMaxInFlight(0)).rejects.toMatchObject({ name: 'ValidationError' });
  });
});

describe('releaseFencing', () => {
  it("frees the run's slot for another node", async () => {
    // Prepare
    const [cluster] = await fencers(1);
    await cluster?.claimFencing('node-a', 'run-1', TTL);

    // Act
    await cluster?.releaseFencing('node-a', 'run-1');
    const next = await cluster?.claimFencing('node-b', 'run-2', TTL);

    // Assess
    expect(next).toStrictEqual({ granted: true, inFlight: ['node-b'] });
  });

  it("never releases another run's claim, and tolerates nothing to release", async () => {
    // Prepare
    const [cluster] = await fencers(1);
    await cluster?.releaseFencing('node-a', 'run-0');
    await cluster?.claimFencing('node-a', 'run-1', TTL);

    // Act
    await cluster?.releaseFencing('node-a', 'run-2');
    const other = await cluster?.claimFencing('node-b', 'run-3', TTL);

    // Assess
    expect(other).toStrictEqual({ granted: false, reason: 'in-flight-limit', inFlight: ['node-a'] });
  });
});

describe('listFencingClaims', () => {
  it('lists the live claims by node, and none before any fencer claimed', async () => {
    // Prepare
    const leaseName = unique('claims');
    const cluster = new KubeCluster(lab.endpoint, { leaseName });
    const none = await cluster.listFencingClaims(TEN_MINUTES);
    await cluster.setMaxInFlight(3);
    await cluster.claimFencing('node-b', 'run-2', TTL);
    await cluster.claimFencing('node-a', 'run-1', TTL);

    // Act
    const claims = await cluster.listFencingClaims(TEN_MINUTES);

    // Assess
    expect(none.claims).toStrictEqual([]);
    expect(claims.claims).toStrictEqual([
      { node: 'node-a', runId: 'run-1', renewedAt: expect.any(String) },
      { node: 'node-b', runId: 'run-2', renewedAt: expect.any(String) },
    ]);
    expect(claims.maxInFlight).toBe(3);
  });

  it('ages each claim by the TTL it was taken with, on the server clock, whatever TTL the reader passes', async () => {
    // Prepare: one claim that lives a second, one that lives ten minutes.
    const leaseName = unique('claims');
    const cluster = new KubeCluster(lab.endpoint, { leaseName });
    await cluster.setMaxInFlight(3);
    await cluster.claimFencing('node-short', 'run-1', { ttlSeconds: 1 });
    await cluster.claimFencing('node-long', 'run-2', TTL);

    // Act: the server's Date header has one-second resolution, so wait past two of its seconds.
    await sleep(2_200);
    const afterShortTtl = await cluster.listFencingClaims(0);

    // Assess
    expect(afterShortTtl.claims.map((c) => c.node)).toStrictEqual(['node-long']);
  });
});
