/**
 * Installs the lab's EC2 emulator, moto server (PyPI `moto[server]`, pinned), once into a venv in
 * the user's cache, outside the repository.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The moto release the lab is pinned to (the fidelity patch is written against it). */
export const MOTO_VERSION = '5.2.5';
/** How the emulator names itself in every line it prints. */
export const EMULATOR_COMPONENT = 'ec2-emulator (moto)';
const COMPONENT = EMULATOR_COMPONENT;

/** Raised when the emulator cannot be installed or started; its message is one line a human can act on. */
export class Ec2EmulatorError extends Error {
  override readonly name = 'Ec2EmulatorError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    // One line is the whole story (the log file holds the rest): no stack trace spam in test output.
    this.stack = `${this.name}: ${message}`;
  }
}

/**
 * Where one moto version lives: `${XDG_CACHE_HOME:-~/.cache}/kube-fencer/moto-<version>`
 * (`$KUBE_FENCER_CACHE/moto-<version>` when set, like the lab's other cached tools).
 */
export const motoHome = (version: string = MOTO_VERSION): string =>
  join(
    process.env.KUBE_FENCER_CACHE ||
      join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kube-fencer'),
    `moto-${version}`,
  );

/** A usable moto install. */
export interface MotoInstallation {
  readonly version: string;
  readonly python: string;
  readonly venv: string;
}

/** Prints one line naming the component and throws it as an {@link Ec2EmulatorError}. */
export const failEmulator = (message: string, cause?: unknown): never => {
  const line = `${COMPONENT}: ${message}`;
  console.error(line);
  throw new Ec2EmulatorError(line, { cause });
};

const run = (command: string, args: readonly string[], logFile: string): Promise<number | null> =>
  new Promise((resolve, reject) => {
    const fd = openSync(logFile, 'a');
    writeFileSync(fd, `\n$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });

/** Waits for another process's install; a lock older than 15 minutes is a crashed installer's. */
async function takeInstallLock(lock: string, stamp: string): Promise<boolean> {
  for (;;) {
    try {
      mkdirSync(lock);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (existsSync(stamp)) return false;
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 15 * 60_000) rmSync(lock, { recursive: true, force: true });
    await sleep(1000);
  }
}

/**
 * Installs `moto[server]==<version>` into its venv once; later calls only read the stamp file.
 * Safe to call from several processes at once (a lock directory serialises installers).
 */
export async function ensureMoto(version: string = MOTO_VERSION): Promise<MotoInstallation> {
  const home = motoHome(version);
  const venv = join(home, 'venv');
  const python = join(venv, 'bin', 'python');
  const stamp = join(home, 'installed.json');
  const installation = { version, python, venv };
  if (existsSync(stamp) && existsSync(python)) return installation;

  mkdirSync(home, { recursive: true });
  const lock = join(home, 'install.lock');
  if (!(await takeInstallLock(lock, stamp))) return installation;
  const logFile = join(home, 'install.log');
  try {
    if (existsSync(stamp) && existsSync(python)) return installation;
    process.stderr.write(`${COMPONENT}: installing moto[server]==${version} into ${venv} (once)\n`);
    // A half-built venv from an interrupted install is not worth repairing.
    rmSync(venv, { recursive: true, force: true });
    const hostPython = process.env.KUBE_FENCER_PYTHON ?? 'python3';
    const steps: [step: string, command: string, args: string[]][] = [
      ['creating the venv', hostPython, ['-m', 'venv', venv]],
      [
        `installing moto[server]==${version} with pip`,
        python,
        ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', `moto[server]==${version}`],
      ],
      [
        'importing moto',
        python,
        ['-c', `import moto, moto.server; assert moto.__version__ == "${version}", moto.__version__`],
      ],
    ];
    for (const [step, command, args] of steps) {
      const code = await run(command, args, logFile).catch((error: Error) =>
        failEmulator(`install failed while ${step} (${error.message}); log: ${logFile}`, error),
      );
      if (code !== 0) failEmulator(`install failed while ${step} (exit ${code}); log: ${logFile}`);
    }
    writeFileSync(stamp, `${JSON.stringify({ version, python, installedAt: new Date().toISOString() })}\n`);
    return installation;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
