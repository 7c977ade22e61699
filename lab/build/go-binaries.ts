import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, GO_MODULES } from '../paths.js';
import { LAB_VERSIONS } from '../versions.js';
import { LabBuildError } from './errors.js';
import { withLock } from './lock.js';
import { type Progress, progressReporter } from './progress.js';

/** One binary the lab runs, and the Go package it is built from. */
export interface BinarySpec {
  readonly name: string;
  readonly module: keyof typeof GO_MODULES;
  readonly pkg: string;
  readonly ldflags: string;
}

/** The `-X` flags that stamp a Kubernetes build with its version, as its own release build does. */
export const k8sVersionFlags = (v: string = LAB_VERSIONS.kubernetes): string => {
  const minor = v.split('.')[1];
  const vars = {
    'k8s.io/component-base/version.gitVersion': `v${v}`,
    'k8s.io/component-base/version.gitMajor': '1',
    'k8s.io/component-base/version.gitMinor': minor,
    'k8s.io/component-base/version.gitTreeState': 'clean',
    'k8s.io/client-go/pkg/version.gitVersion': `v${v}`,
    'k8s.io/client-go/pkg/version.gitMajor': '1',
    'k8s.io/client-go/pkg/version.gitMinor': minor,
  };
  return Object.entries(vars)
    .map(([k, val]) => `-X ${k}=${val}`)
    .join(' ');
};

const BINARIES: readonly BinarySpec[] = [
  { name: 'etcd', module: 'k8s', pkg: 'go.etcd.io/etcd/server/v3', ldflags: '-s -w' },
  {
    name: 'kube-apiserver',
    module: 'k8s',
    pkg: 'k8s.io/kubernetes/cmd/kube-apiserver',
    ldflags: `-s -w ${k8sVersionFlags()}`,
  },
  {
    name: 'kube-controller-manager',
    module: 'k8s',
    pkg: 'k8s.io/kubernetes/cmd/kube-controller-manager',
    ldflags: `-s -w ${k8sVersionFlags()}`,
  },
  {
    name: 'kube-scheduler',
    module: 'k8s',
    pkg: 'k8s.io/kubernetes/cmd/kube-scheduler',
    ldflags: `-s -w ${k8sVersionFlags()}`,
  },
  // Not run by the lab itself: the anchor the sweep benchmark compares against (bench/sweep-scale.ts).
  {
    name: 'kubectl',
    module: 'k8s',
    pkg: 'k8s.io/kubernetes/cmd/kubectl',
    ldflags: `-s -w ${k8sVersionFlags()}`,
  },
  {
    name: 'csi-attacher',
    module: 'csi',
    pkg: 'github.com/kubernetes-csi/external-attacher/v4/cmd/csi-attacher',
    ldflags: `-s -w -X main.version=v${LAB_VERSIONS.externalAttacher}`,
  },
];

export type LabBinary = (typeof BINARIES)[number]['name'];

/** A short hash of a Go module's go.mod and go.sum: part of every cache key built from that module. */
export const sumHash = (module: keyof typeof GO_MODULES): string =>
  createHash('sha256')
    .update(readFileSync(join(GO_MODULES[module], 'go.sum')))
    .update(readFileSync(join(GO_MODULES[module], 'go.mod')))
    .digest('hex')
    .slice(0, 12);

/** The cache folder for the current pins: a new pin or a changed go.sum gives a new folder. */
export function binDir(): string {
  const v = LAB_VERSIONS;
  const key = `k8s-v${v.kubernetes}-etcd-v${v.etcd}-attacher-v${v.externalAttacher}-${sumHash('k8s')}-${sumHash('csi')}`;
  return join(cacheRoot(), 'bin', key);
}

/** The environment every lab Go build runs in: the local toolchain, static, the committed go.sum only. */
export const goEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  GOTOOLCHAIN: 'local',
  CGO_ENABLED: '0',
  GOFLAGS: '-mod=readonly',
});

export function requireGo(logDir: string): void {
  const probe = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    const log = join(logDir, 'go-toolchain.log');
    writeFileSync(log, `${probe.error?.message ?? ''}\n${probe.stderr ?? ''}`);
    throw new LabBuildError(
      `lab build: Go toolchain not found on PATH (needed for kube-apiserver, etcd, csi-attacher; Go >= 1.26); see ${log}`,
    );
  }
}

/** Counts the packages a build will compile, so progress can be shown as a fraction. */
function countPackages(spec: BinarySpec): number {
  const r = spawnSync('go', ['list', '-deps', spec.pkg], {
    cwd: GO_MODULES[spec.module],
    env: goEnv(),
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.split('\n').filter((l) => l.includes('.')).length : 0;
}

export function buildOne(
  spec: BinarySpec,
  outDir: string,
  logDir: string,
  progress: Progress,
): Promise<void> {
  const logFile = join(logDir, `build-${spec.name}.log`);
  const total = countPackages(spec);
  const tmpOut = join(outDir, `.${spec.name}.tmp`);
  const args = ['build', '-v', '-p', '2', '-trimpath', '-ldflags', spec.ldflags, '-o', tmpOut, spec.pkg];
  return new Promise((resolve, reject) => {
    const log = createWriteStream(logFile);
    log.write(`$ go ${args.join(' ')}\n(in ${GO_MODULES[spec.module]})\n`);
    const child = spawn('go', args, {
      cwd: GO_MODULES[spec.module],
      env: goEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let compiled = 0;
    const onData = (chunk: Buffer): void => {
      log.write(chunk);
      compiled += chunk
        .toString()
        .split('\n')
        .filter((l) => l.trim() !== '').length;
      progress.update(spec.name, compiled, total);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (err) => {
      log.end();
      reject(
        new LabBuildError(`lab build: could not start go for ${spec.name} (${err.message}); see ${logFile}`),
      );
    });
    child.on('close', (code) => {
      log.end();
      if (code === 0) {
        renameSync(tmpOut, join(outDir, spec.name));
        progress.done(spec.name);
        resolve();
      } else {
        rmSync(tmpOut, { force: true });
        reject(
          new LabBuildError(
            `lab build: building ${spec.name} failed (go build exit ${code}); see ${logFile}`,
          ),
        );
      }
    });
  });
}

/** The lab's CSI controller speaks the CSI spec that the attacher was built with; keep its csi.proto beside the binaries. */
function copyCsiProto(outDir: string, logDir: string): void {
  const mod = `github.com/container-storage-interface/spec@v${LAB_VERSIONS.csiSpec}`;
  const r = spawnSync('go', ['mod', 'download', '-json', mod], {
    cwd: GO_MODULES.csi,
    env: goEnv(),
    encoding: 'utf8',
  });
  const dir = r.status === 0 ? (JSON.parse(r.stdout) as { Dir?: string }).Dir : undefined;
  if (!dir) {
    const log = join(logDir, 'csi-proto.log');
    writeFileSync(log, `${r.stdout}\n${r.stderr}`);
    throw new LabBuildError(`lab build: could not fetch csi.proto (${mod}); see ${log}`);
  }
  copyFileSync(join(dir, 'csi.proto'), join(outDir, 'csi.proto'));
}

/** True when every lab binary for the current pins is already in the cache. */
export function binariesReady(): boolean {
  const dir = binDir();
  return (
    existsSync(join(dir, '.complete')) &&
    existsSync(join(dir, 'csi.proto')) &&
    BINARIES.every((b) => existsSync(join(dir, b.name)))
  );
}

/**
 * Builds every lab binary once and caches it outside the repository. Returns the folder.
 * Progress goes to `out` (stderr by default). Throws LabBuildError with one clear line on failure.
 */
export async function ensureLabBinaries(out: NodeJS.WritableStream = process.stderr): Promise<string> {
  const dir = binDir();
  if (binariesReady()) return dir;
  const logDir = join(cacheRoot(), 'logs');
  mkdirSync(dir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  return withLock(join(cacheRoot(), 'bin', '.build.lock'), async () => {
    if (binariesReady()) return dir;
    requireGo(logDir);
    const progress = progressReporter(out);
    out.write(
      `lab build: building ${BINARIES.length} binaries into ${dir} (first run only; logs in ${logDir})\n`,
    );
    for (const spec of BINARIES) {
      if (!existsSync(join(dir, spec.name))) await buildOne(spec, dir, logDir, progress);
    }
    copyCsiProto(dir, logDir);
    writeFileSync(
      join(dir, '.complete'),
      `${JSON.stringify({ ...LAB_VERSIONS, builtAt: new Date().toISOString() })}\n`,
    );
    progress.finish();
    return dir;
  });
}
