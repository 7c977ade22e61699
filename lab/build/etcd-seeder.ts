/**
 * The etcd seeder (lab/go/k8s/cmd/etcd-seed): the scale benchmark's way to hold thousands of objects,
 * and the adversarial scenarios' way to stage a Lease as the API server would have stored it long ago
 * (test/e2e/adversarial/staging.ts). Built by `npm run lab:build` after the lab's binaries (seconds, on
 * their warm Go build cache), or on demand; cached like them, keyed by the pinned Kubernetes version, the
 * module's go.sum and the seeder's source.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, GO_MODULES } from '../paths.js';
import { LAB_VERSIONS } from '../versions.js';
import { LabBuildError } from './errors.js';
import { goEnv, sumHash } from './go-binaries.js';
import { withLock } from './lock.js';

const SOURCE_DIR = join(GO_MODULES.k8s, 'cmd', 'etcd-seed');

function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(SOURCE_DIR).sort()) {
    hash.update(file).update(readFileSync(join(SOURCE_DIR, file)));
  }
  return hash.digest('hex').slice(0, 12);
}

/** Where the seeder for the current pins and source lives (built or not). */
export function etcdSeederPath(): string {
  const key = `k8s-v${LAB_VERSIONS.kubernetes}-${sumHash('k8s')}-${sourceHash()}`;
  return join(cacheRoot(), 'bin', 'etcd-seed', key, 'etcd-seed');
}

/**
 * Builds the seeder unless the cache holds it; returns its path. With the lab's Go build cache warm
 * (after `npm run lab:build`) this takes seconds: every package it needs is one kube-apiserver uses.
 */
export async function ensureEtcdSeeder(): Promise<string> {
  const path = etcdSeederPath();
  if (existsSync(path)) return path;
  const dir = join(path, '..');
  mkdirSync(dir, { recursive: true });
  return withLock(join(dir, '.build.lock'), async () => {
    if (existsSync(path)) return path;
    const tmp = `${path}.tmp`;
    const r = spawnSync('go', ['build', '-trimpath', '-ldflags', '-s -w', '-o', tmp, './cmd/etcd-seed'], {
      cwd: GO_MODULES.k8s,
      env: goEnv(),
      encoding: 'utf8',
    });
    if (r.error || r.status !== 0) {
      const log = join(dir, 'build.log');
      writeFileSync(log, `${r.error?.message ?? ''}\n${r.stdout ?? ''}\n${r.stderr ?? ''}`);
      throw new LabBuildError(`building the etcd seeder failed (go build exit ${r.status}); see ${log}`);
    }
    renameSync(tmp, path);
    return path;
  });
}
