/**
 * Writes Kubernetes objects straight into the lab's etcd, encoded as kube-apiserver stores them (see
 * lab/go/k8s/cmd/etcd-seed for what that means and what it skips: admission, validation, defaulting on
 * write). The API server's watch cache picks them up from etcd's watch, as it does its own writes.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ensureEtcdSeeder } from './build/etcd-seeder.js';

/** An object as the API takes it: apiVersion and kind at a storage version, metadata with a name. */
export interface SeedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [k: string]: unknown };
  readonly [field: string]: unknown;
}

/** What the seeder reports. */
export interface EtcdSeedSummary {
  readonly objects: number;
  readonly transactions: number;
  /** Bytes stored (the protobuf values, keys left out). */
  readonly bytes: number;
  readonly seconds: number;
}

/** Lines handed to the seeder per write: fewer, larger writes to its stdin. */
const LINES_PER_WRITE = 512;

/**
 * Creates `objects` in etcd (each key must be new, as for a create through the API); resolves with
 * the seeder's summary once every transaction has been committed.
 */
export async function seedEtcd(etcdUrl: string, objects: Iterable<SeedObject>): Promise<EtcdSeedSummary> {
  const seeder = await ensureEtcdSeeder();
  const child = spawn(seeder, ['--endpoint', etcdUrl], { stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  const closed = once(child, 'close') as Promise<[number | null]>;
  // A seeder that fails early closes its stdin; the failure is reported from its exit below.
  child.stdin.on('error', () => undefined);
  let lines: string[] = [];
  const flush = async (): Promise<void> => {
    if (lines.length === 0 || child.stdin.destroyed) return;
    const chunk = `${lines.join('\n')}\n`;
    lines = [];
    if (!child.stdin.write(chunk)) await Promise.race([once(child.stdin, 'drain'), closed]);
  };
  for (const object of objects) {
    lines.push(JSON.stringify(object));
    if (lines.length === LINES_PER_WRITE) await flush();
  }
  await flush();
  child.stdin.end();
  const [status] = await closed;
  if (status !== 0) {
    throw new Error(
      `etcd seeder failed (exit ${status}): ${Buffer.concat(err).toString('utf8').slice(-2000)}`,
    );
  }
  return JSON.parse(Buffer.concat(out).toString('utf8')) as EtcdSeedSummary;
}
