/**
 * Debian's Ceph 16.2 (Pacific) packages for the lab's Ceph cluster, installed with apt on first use.
 * They are machine-wide (the daemons never touch /etc/ceph or /var/lib/ceph: every path is in the run
 * folder), so later runs only check that they are there.
 */
import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LabBuildError } from '../build/errors.js';
import { withLock } from '../build/lock.js';
import { cacheRoot } from '../paths.js';

const execFileP = promisify(execFile);

/**
 * What the lab runs: the three daemons, the `ceph`/`rbd` CLIs, and librbd for Python (the node
 * clients). The dashboard is left out on purpose: it cannot load beside `restful` on bookworm.
 */
export const CEPH_PACKAGES = [
  'ceph-mon',
  'ceph-osd',
  'ceph-mgr',
  'ceph-common',
  'python3-rbd',
  'python3-rados',
] as const;

/** The interpreter with `rados` and `rbd`; the `python3` on PATH may be a pyenv shim without them. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

/** The packages of `names` that dpkg does not report as installed. */
export async function missingPackages(names: readonly string[] = CEPH_PACKAGES): Promise<string[]> {
  // dpkg-query's own ${…} fields, not a template literal.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query format string
  const { stdout } = await execFileP('dpkg-query', ['-W', '-f=${Package} ${db:Status-Status}\\n', ...names], {
    encoding: 'utf8',
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const installed = new Set(
    stdout
      .split('\n')
      .map((line) => line.trim().split(' '))
      .filter(([, status]) => status === 'installed')
      .map(([name]) => name),
  );
  return names.filter((name) => !installed.has(name));
}

const run = (command: string, args: readonly string[], logFile: string): Promise<number | null> =>
  new Promise((resolve, reject) => {
    const fd = openSync(logFile, 'a');
    writeFileSync(fd, `\n$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, {
      stdio: ['ignore', fd, fd],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    closeSync(fd);
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });

/** Fails with one line naming the component, the cause and the log. */
const fail = (message: string, cause?: unknown): never => {
  throw new LabBuildError(`lab ceph: ${message}`, { cause });
};

export interface EnsurePackagesOptions {
  /** @default CEPH_PACKAGES */
  readonly packages?: readonly string[];
  /** Where the one-line notice goes. @default process.stderr */
  readonly out?: NodeJS.WritableStream;
}

/**
 * Makes sure the Ceph packages are installed: a no-op when they are, otherwise `apt-get update` and
 * `apt-get install` (about a minute, one line printed), under a lock so two labs never run apt at once.
 * Throws a {@link LabBuildError} naming the log when apt cannot install them (no root, no mirror).
 */
export async function ensureCephPackages(options: EnsurePackagesOptions = {}): Promise<void> {
  const packages = options.packages ?? CEPH_PACKAGES;
  const out = options.out ?? process.stderr;
  if ((await missingPackages(packages)).length === 0) return;
  const logDir = join(cacheRoot(), 'logs');
  mkdirSync(logDir, { recursive: true });
  await withLock(join(cacheRoot(), 'apt-ceph.lock'), async () => {
    const missing = await missingPackages(packages);
    if (missing.length === 0) return;
    if (process.getuid?.() !== 0) {
      fail(`installing ${missing.join(' ')} needs root (apt-get); install them by hand or run as root`);
    }
    const logFile = join(logDir, 'apt-ceph.log');
    out.write(
      `lab ceph: installing Debian's Ceph 16.2 packages (${missing.join(' ')}) with apt-get, first run only; log: ${logFile}\n`,
    );
    const started = Date.now();
    // Another apt (unattended upgrades, another engineer) may hold dpkg's lock: wait for it, bounded.
    const lockWait = ['-o', 'DPkg::Lock::Timeout=300'];
    const updated = await run('apt-get', [...lockWait, 'update'], logFile).catch((e) =>
      fail(`apt-get: ${e}`, e),
    );
    if (updated !== 0) fail(`apt-get update failed (exit ${updated}); see ${logFile}`);
    const installed = await run(
      'apt-get',
      [...lockWait, 'install', '-y', '--no-install-recommends', ...packages],
      logFile,
    );
    if (installed !== 0) fail(`apt-get install failed (exit ${installed}); see ${logFile}`);
    const still = await missingPackages(packages);
    if (still.length > 0) fail(`still missing after apt-get install: ${still.join(' ')}; see ${logFile}`);
    out.write(`lab ceph: packages installed in ${Math.round((Date.now() - started) / 1000)} s\n`);
  });
}
