/**
 * Helm (LAB_VERSIONS.helm), built from its Go module (lab/go/helm) like the lab's Kubernetes binaries:
 * the chart's tests lint and render deploy/helm/kube-fencer with it. Cached apart from the other
 * binaries, keyed by its pin and the module's go.sum, so adding or bumping it rebuilds nothing else.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, GO_MODULES } from '../paths.js';
import { LAB_VERSIONS } from '../versions.js';
import { LabBuildError } from './errors.js';
import { type BinarySpec, buildOne, goEnv, requireGo, sumHash } from './go-binaries.js';
import { withLock } from './lock.js';
import { progressReporter } from './progress.js';

/** The Kubernetes release the module's client-go speaks, as `[major, minor]` (v0.36.2 is 1.36). */
function clientGoRelease(logDir: string): [number, number] {
  const r = spawnSync('go', ['list', '-m', '-f', '{{.Version}}', 'k8s.io/client-go'], {
    cwd: GO_MODULES.helm,
    env: goEnv(),
    encoding: 'utf8',
  });
  const match = /^v0\.(\d+)\./.exec(r.stdout.trim());
  if (r.status !== 0 || !match) {
    const log = join(logDir, 'helm-client-go.log');
    writeFileSync(log, `${r.stdout}\n${r.stderr}`);
    throw new LabBuildError(
      `lab build: could not read helm's k8s.io/client-go version (lab/go/helm); see ${log}`,
    );
  }
  return [1, Number(match[1])];
}

/**
 * The `-X` flags Helm's own release build sets (its Makefile): the version `helm version` prints, and
 * the Kubernetes version `helm lint` and `helm template` assume, from the client-go it was built with.
 */
function helmFlags(logDir: string): string {
  const [major, minor] = clientGoRelease(logDir);
  const vars = {
    'helm.sh/helm/v3/internal/version.version': `v${LAB_VERSIONS.helm}`,
    'helm.sh/helm/v3/internal/version.metadata': '',
    'helm.sh/helm/v3/internal/version.gitTreeState': 'clean',
    'helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor': String(major),
    'helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor': String(minor),
    'helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor': String(major),
    'helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor': String(minor),
  };
  return Object.entries(vars)
    .map(([k, v]) => `-X ${k}=${v}`)
    .join(' ');
}

export function helmDir(): string {
  return join(cacheRoot(), 'bin', `helm-v${LAB_VERSIONS.helm}-${sumHash('helm')}`);
}

/** The helm binary for the current pin (built or not). */
export const helmPath = (): string => join(helmDir(), 'helm');

const ready = (dir: string): boolean => existsSync(join(dir, '.complete'));

/**
 * Builds helm once (a few minutes on two cores with a cold Go cache) and returns its path. Progress goes
 * to `out`. Throws LabBuildError with one clear line, naming the build log, on failure.
 */
export async function ensureHelm(out: NodeJS.WritableStream = process.stderr): Promise<string> {
  const dir = helmDir();
  if (ready(dir)) return helmPath();
  const logDir = join(cacheRoot(), 'logs');
  mkdirSync(dir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  return withLock(join(cacheRoot(), 'bin', '.helm.lock'), async () => {
    if (ready(dir)) return helmPath();
    requireGo(logDir);
    const spec: BinarySpec = {
      name: 'helm',
      module: 'helm',
      pkg: 'helm.sh/helm/v3/cmd/helm',
      ldflags: `-s -w ${helmFlags(logDir)}`,
    };
    const progress = progressReporter(out);
    out.write(`lab build: building helm v${LAB_VERSIONS.helm} into ${dir} (first run only)\n`);
    if (!existsSync(helmPath())) await buildOne(spec, dir, logDir, progress);
    writeFileSync(join(dir, '.complete'), `${JSON.stringify({ helm: LAB_VERSIONS.helm })}\n`);
    progress.finish();
    return helmPath();
  });
}
