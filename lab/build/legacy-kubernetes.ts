/**
 * Kubernetes before 1.26 (LAB_VERSIONS.legacyKubernetes), for a lab whose cluster the fencer must cure by
 * its legacy path: kube-apiserver, kube-controller-manager and kube-scheduler, built from their Go
 * modules (lab/go/k8s-legacy) like the current ones. etcd and the CSI attacher are the current lab's.
 * Cached apart from them, keyed by the pin and the module's go.sum, so neither build redoes the other.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot } from '../paths.js';
import { LAB_VERSIONS } from '../versions.js';
import { type BinarySpec, buildOne, k8sVersionFlags, requireGo, sumHash } from './go-binaries.js';
import { withLock } from './lock.js';
import { progressReporter } from './progress.js';

const COMPONENTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

const SPECS: readonly BinarySpec[] = COMPONENTS.map((name) => ({
  name,
  module: 'k8sLegacy',
  pkg: `k8s.io/kubernetes/cmd/${name}`,
  ldflags: `-s -w ${k8sVersionFlags(LAB_VERSIONS.legacyKubernetes)}`,
}));

export function legacyKubernetesDir(): string {
  return join(cacheRoot(), 'bin', `k8s-legacy-v${LAB_VERSIONS.legacyKubernetes}-${sumHash('k8sLegacy')}`);
}

const ready = (dir: string): boolean => existsSync(join(dir, '.complete'));

/**
 * Builds the legacy release once (several minutes on a cold Go cache); returns its folder. Progress goes
 * to `out`. Throws LabBuildError with one clear line, naming the build log, on failure.
 */
export async function ensureLegacyKubernetes(out: NodeJS.WritableStream = process.stderr): Promise<string> {
  const dir = legacyKubernetesDir();
  if (ready(dir)) return dir;
  const logDir = join(cacheRoot(), 'logs', 'legacy-kubernetes');
  mkdirSync(dir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  return withLock(join(dir, '.build.lock'), async () => {
    if (ready(dir)) return dir;
    requireGo(logDir);
    const progress = progressReporter(out);
    out.write(
      `lab build: building Kubernetes v${LAB_VERSIONS.legacyKubernetes} (the legacy lab) into ${dir} (first run only; logs in ${logDir})\n`,
    );
    for (const spec of SPECS) {
      if (!existsSync(join(dir, spec.name))) await buildOne(spec, dir, logDir, progress);
    }
    writeFileSync(
      join(dir, '.complete'),
      `${JSON.stringify({ kubernetes: LAB_VERSIONS.legacyKubernetes })}\n`,
    );
    progress.finish();
    return dir;
  });
}
