/**
 * The etcd path of the benchmark's seeding: the bulk objects written straight into the lab's etcd in
 * kube-apiserver's own storage encoding (lab/etcd-seed.ts), in their settled form, then counted back
 * through the API server, so that no figure is printed over objects the API server does not decode
 * and serve. Thousands of objects a second instead of the API path's tens.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type EtcdSeedSummary, type SeedObject, seedEtcd } from '../../lab/etcd-seed.js';
import type { Lab } from '../../lab/lab.js';
import { ApiClient } from '../../lib/adapters/kubernetes/api/api-client.js';
import { BULK_LABEL, NAMESPACE } from './objects.js';

/** How many bulk objects of each kind the API server must serve once a stage is seeded. */
export interface BulkCounts {
  readonly nodes: number;
  readonly persistentvolumes: number;
  readonly volumeattachments: number;
  readonly persistentvolumeclaims: number;
  readonly pods: number;
}

/** Seeds one batch of objects (one kind, typically), reporting objects per second. */
export async function seedStage(
  lab: Lab,
  what: string,
  objects: Iterable<SeedObject>,
  say: (line: string) => void,
): Promise<EtcdSeedSummary> {
  const summary = await seedEtcd(lab.etcdUrl, objects);
  say(
    `${what} into etcd in ${summary.seconds.toFixed(1)} s (${summary.transactions} transactions, ` +
      `${(summary.bytes / 1e6).toFixed(1)} MB stored, ${Math.round(summary.objects / Math.max(summary.seconds, 0.001))}/s)`,
  );
  return summary;
}

const PATHS: Record<keyof BulkCounts, string> = {
  nodes: '/api/v1/nodes',
  persistentvolumes: '/api/v1/persistentvolumes',
  volumeattachments: '/apis/storage.k8s.io/v1/volumeattachments',
  persistentvolumeclaims: `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`,
  pods: `/api/v1/namespaces/${NAMESPACE}/pods`,
};
/** Metadata only: the API server still decodes every object it serves, but sends a fraction of it. */
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/**
 * The bulk objects of one resource the API server serves, counted page by page (a consistent list,
 * which the API server answers from its watch cache once that has caught up with etcd: an object it
 * could not decode from etcd would be missing).
 */
async function served(lab: Lab, resource: keyof BulkCounts): Promise<number> {
  const api = new ApiClient(lab.endpoint);
  let count = 0;
  let next: string | undefined;
  do {
    // An empty page of a filtered list comes back with `items: null`.
    const page = await api.call<{ items: unknown[] | null; metadata: { continue?: string } }>({
      method: 'GET',
      path: PATHS[resource],
      query: { labelSelector: `${BULK_LABEL}=bulk`, limit: '5000', continue: next },
      accept: METADATA_LIST,
    });
    count += page.items?.length ?? 0;
    next = page.metadata.continue || undefined;
  } while (next);
  return count;
}

/**
 * Waits until the API server serves every seeded object; throws with the counts after `timeoutMs`.
 */
export async function awaitServed(
  lab: Lab,
  expected: BulkCounts,
  say: (line: string) => void,
  timeoutMs = 600_000,
): Promise<void> {
  const t0 = performance.now();
  let counts: Record<string, number> = {};
  let lastError = '';
  for (;;) {
    counts = {};
    try {
      for (const resource of Object.keys(expected) as (keyof BulkCounts)[]) {
        counts[resource] = await served(lab, resource);
      }
      lastError = '';
    } catch (error) {
      // A consistent list waits a few seconds for the watch cache to catch up with etcd, then answers
      // 504 (ResourceVersionTooLarge): after a burst of 100,000 writes it may take longer than that.
      lastError = error instanceof Error ? error.message : String(error);
    }
    const missing = (Object.keys(expected) as (keyof BulkCounts)[]).filter((r) => counts[r] !== expected[r]);
    if (missing.length === 0) break;
    if (performance.now() - t0 > timeoutMs) {
      throw new Error(
        `seeded objects not served by the API server: ${missing.map((r) => `${r} ${counts[r] ?? '?'} of ${expected[r]}`).join(', ')}${lastError ? ` (${lastError})` : ''}`,
      );
    }
    await sleep(5_000);
  }
  say(
    `served by the API server (metadata lists, pages of 5,000): ${Object.entries(counts)
      .map(([r, n]) => `${n} ${r}`)
      .join(', ')} in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}
