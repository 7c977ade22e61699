/**
 * The csi-addons controller (kubernetes-csi-addons' `manager`, real, built from its Go module) and what
 * the lab's stand-in of ceph-csi's csi-addons side needs beside it: the two protos it serves and the
 * CRDs the controller reconciles. Cached apart from the Kubernetes binaries, keyed by its own pin, so
 * adding or bumping it never rebuilds kube-apiserver.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, GO_MODULES } from '../paths.js';
import { LAB_VERSIONS } from '../versions.js';
import { LabBuildError } from './errors.js';
import { type BinarySpec, buildOne, goEnv, requireGo, sumHash } from './go-binaries.js';
import { withLock } from './lock.js';
import { progressReporter } from './progress.js';

const MODULE = 'github.com/csi-addons/kubernetes-csi-addons';

const MANAGER: BinarySpec = {
  name: 'csi-addons-manager',
  module: 'csiAddons',
  pkg: `${MODULE}/cmd/manager`,
  ldflags: '-s -w',
};

/** What the lab reads from the cache folder. */
export const CSI_ADDONS_FILES = {
  manager: MANAGER.name,
  /** The sidecar's NetworkFence service (package `proto`), as the controller calls it. */
  networkFenceProto: 'networkfence.proto',
  /** csi-addons' Identity service (package `identity`): capabilities, probe. */
  identityProto: 'identity.proto',
  /** Every CRD the controller serves: it will not start while one is missing. */
  crds: 'crds.yaml',
} as const;

export function csiAddonsDir(): string {
  return join(cacheRoot(), 'bin', `csi-addons-v${LAB_VERSIONS.csiAddons}-${sumHash('csiAddons')}`);
}

const ready = (dir: string): boolean => existsSync(join(dir, '.complete'));

/** The folder a Go module was downloaded to (the module cache), from the committed go.sum. */
function moduleDir(module: string, logDir: string): string {
  const r = spawnSync('go', ['mod', 'download', '-json', module], {
    cwd: GO_MODULES.csiAddons,
    env: goEnv(),
    encoding: 'utf8',
  });
  const dir = r.status === 0 ? (JSON.parse(r.stdout) as { Dir?: string }).Dir : undefined;
  if (!dir) {
    const log = join(logDir, 'csi-addons-module.log');
    writeFileSync(log, `${r.stdout}\n${r.stderr}`);
    throw new LabBuildError(`lab build: could not fetch ${module}; see ${log}`);
  }
  return dir;
}

/** The version of `module` that the committed go.mod requires. */
function requiredVersion(module: string): string {
  const r = spawnSync('go', ['list', '-m', '-f', '{{.Version}}', module], {
    cwd: GO_MODULES.csiAddons,
    env: goEnv(),
    encoding: 'utf8',
  });
  const version = r.stdout.trim();
  if (r.status !== 0 || !version) throw new LabBuildError(`lab build: go.mod does not require ${module}`);
  return version;
}

/**
 * Builds the csi-addons controller once (about a minute and a half on two cores) and copies its protos
 * and CRDs beside it. Returns the folder.
 */
export async function ensureCsiAddons(out: NodeJS.WritableStream = process.stderr): Promise<string> {
  const dir = csiAddonsDir();
  if (ready(dir)) return dir;
  const logDir = join(cacheRoot(), 'logs');
  mkdirSync(dir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  return withLock(join(cacheRoot(), 'bin', '.csi-addons.lock'), async () => {
    if (ready(dir)) return dir;
    requireGo(logDir);
    const progress = progressReporter(out);
    out.write(`lab build: building the csi-addons controller into ${dir} (first run only)\n`);
    if (!existsSync(join(dir, MANAGER.name))) await buildOne(MANAGER, dir, logDir, progress);
    const addons = moduleDir(`${MODULE}@v${LAB_VERSIONS.csiAddons}`, logDir);
    const spec = moduleDir(
      `github.com/csi-addons/spec@${requiredVersion('github.com/csi-addons/spec')}`,
      logDir,
    );
    copyFileSync(join(addons, 'internal', 'proto', 'networkfence.proto'), join(dir, 'networkfence.proto'));
    copyFileSync(join(spec, 'identity', 'identity.proto'), join(dir, 'identity.proto'));
    const bases = join(addons, 'config', 'crd', 'bases');
    const crds = readdirSync(bases)
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => readFileSync(join(bases, f), 'utf8').replace(/^---\n/, ''));
    writeFileSync(join(dir, CSI_ADDONS_FILES.crds), crds.join('\n---\n'));
    writeFileSync(join(dir, '.complete'), `${JSON.stringify({ csiAddons: LAB_VERSIONS.csiAddons })}\n`);
    progress.finish();
    return dir;
  });
}
