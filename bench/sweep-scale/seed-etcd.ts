/**
 * The etcd path of the benchmark's seeding: the bulk objects written straight into the lab's etcd in
 * kube-apiserver's own storage encoding (lab/etcd-seed.ts), in their settled form, then counted back
 * through the API server with the lab's kubectl, so that no figure is printed over objects the API
 * server does not decode and serve. Thousands of objects a second instead of the API path's tens.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { binDir } from '../../lab/build/go-binaries.js';
import { type EtcdSeedSummary, type SeedObject, seedEtcd } from '../../lab/etcd-seed.js';
import type { Lab } from '../../lab/lab.js';
import { BULK_LABEL, NAMESPACE } from './objects.js';

/** How many bulk objects of each kind the API server must serve once a stage is seeded. */
export interface BulkCounts {
  readonly nodes: number;
  readonly persistentvolumes: number;
  readonly volumeattachments: number;
  readonly persistentvolumeclaims: number;
  readonly pods: number;
}

const NAMESPACED = new Set<keyof BulkCounts>(['persistentvolumeclaims', 'pods']);

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

/** The bulk objects of one resource the API server serves, counted by the lab's kubectl page by page. */
async function served(lab: Lab, resource: keyof BulkCounts): Promise<number> {
  const args = [
    '--kubeconfig',
    lab.kubeconfigPath,
    'get',
    resource,
    '-l',
    `${BULK_LABEL}=bulk`,
    '--chunk-size=1000',
    '-o',
    'name',
    ...(NAMESPACED.has(resource) ? ['-n', NAMESPACE] : []),
  ];
  const { stdout } = await promisify(execFile)(join(binDir(), 'kubectl'), args, {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout.split('\n').filter((l) => l !== '').length;
}

/**
 * Waits until the API server serves every seeded object (kubectl's lists are consistent reads, so
 * the watch cache has caught up with etcd when they answer); throws with the counts after `timeoutMs`.
 */
export async function awaitServed(
  lab: Lab,
  expected: BulkCounts,
  say: (line: string) => void,
  timeoutMs = 600_000,
): Promise<void> {
  const t0 = performance.now();
  let counts: Record<string, number> = {};
  for (;;) {
    counts = {};
    for (const resource of Object.keys(expected) as (keyof BulkCounts)[]) {
      counts[resource] = await served(lab, resource);
    }
    const missing = (Object.keys(expected) as (keyof BulkCounts)[]).filter((r) => counts[r] !== expected[r]);
    if (missing.length === 0) break;
    if (performance.now() - t0 > timeoutMs) {
      throw new Error(
        `seeded objects not served by the API server: ${missing.map((r) => `${r} ${counts[r]} of ${expected[r]}`).join(', ')}`,
      );
    }
    await sleep(5_000);
  }
  say(
    `served by the API server (kubectl, chunks of 1000): ${Object.entries(counts)
      .map(([r, n]) => `${n} ${r}`)
      .join(', ')} in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}
