import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LabStartError } from './build/errors.js';

/** A lab component running as its own process group, logging to one file. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  hasExited(): boolean;
  stop(): Promise<void>;
  /** Kills the process group at once (SIGKILL) and waits for the exit: a crash, or a throwaway daemon. */
  kill(): Promise<void>;
  /** With `pipes`, the process's stdin and stdout (stderr still goes to the log). */
  readonly stdin?: NodeJS.WritableStream;
  readonly stdout?: NodeJS.ReadableStream;
}

const running = new Map<number, { name: string; pidFile: string }>();

const killGroup = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
};

// A test that fails, or a Ctrl-C, must not leave control-plane processes behind.
process.once('exit', () => {
  for (const [pid, { pidFile }] of running) {
    killGroup(pid, 'SIGKILL');
    rmSync(pidFile, { force: true });
  }
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1)));
}

export interface StartOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly logDir: string;
  /** Folder of pid files; lets a later lab reap what a killed test process left behind. */
  readonly pidDir: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Pipe stdin and stdout to the caller instead of the log (a component that answers requests). */
  readonly pipes?: boolean;
}

/** Starts one component in its own process group with stdout and stderr going to `<logDir>/<name>.log`. */
export function startProcess(options: StartOptions): ManagedProcess {
  mkdirSync(options.logDir, { recursive: true });
  mkdirSync(options.pidDir, { recursive: true });
  const logFile = join(options.logDir, `${options.name}.log`);
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: options.pipes ? ['pipe', 'pipe', fd] : ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined)
    throw new LabStartError(`lab: could not start ${options.name}; see ${logFile}`);
  const pid = child.pid;
  const pidFile = join(options.pidDir, `${options.name}.pid`);
  writeFileSync(pidFile, `${pid} ${process.pid}\n`);
  running.set(pid, { name: options.name, pidFile });
  let exitedFlag = false;
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      exitedFlag = true;
      running.delete(pid);
      rmSync(pidFile, { force: true });
      resolve(code ?? signal ?? 'unknown');
    });
    child.on('error', () => resolve('spawn-error'));
  });
  return {
    name: options.name,
    pid,
    logFile,
    exited,
    hasExited: () => exitedFlag,
    ...(options.pipes && child.stdin && child.stdout ? { stdin: child.stdin, stdout: child.stdout } : {}),
    async kill() {
      killGroup(pid, 'SIGKILL');
      if (!exitedFlag) await exited;
    },
    async stop() {
      if (exitedFlag) return;
      killGroup(pid, 'SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(8000).then(() => false)]);
      if (!done) {
        killGroup(pid, 'SIGKILL');
        await exited;
      }
      // children of the component (none expected) go with the group
      killGroup(pid, 'SIGKILL');
    },
  };
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Kills components whose owning process is gone (a test runner killed with SIGKILL cannot clean up).
 * Scans `<runsRoot>/<run>/pids/*.pid`, each holding "<component pid> <owner pid>".
 */
export function reapOrphans(runsRoot: string): string[] {
  const reaped: string[] = [];
  let runs: string[] = [];
  try {
    runs = readdirSync(runsRoot);
  } catch {
    return reaped;
  }
  for (const run of runs) {
    const pidDir = join(runsRoot, run, 'pids');
    let files: string[] = [];
    try {
      files = readdirSync(pidDir);
    } catch {
      continue;
    }
    for (const file of files) {
      const [pid, owner] = readPidFile(join(pidDir, file));
      if (pid && owner && !isAlive(owner)) {
        killGroup(pid, 'SIGKILL');
        rmSync(join(pidDir, file), { force: true });
        reaped.push(`${run}/${file}`);
      }
    }
  }
  return reaped;
}

/** Whether a lab run still has a component whose owner is alive: its folder must not be pruned. */
export function runInUse(runDir: string): boolean {
  let files: string[] = [];
  try {
    files = readdirSync(join(runDir, 'pids'));
  } catch {
    return false;
  }
  return files.some((file) => {
    const [, owner] = readPidFile(join(runDir, 'pids', file));
    return owner !== undefined && isAlive(owner);
  });
}

/** "<component pid> <owner pid>", or nothing when the file is gone: another lab stopping meanwhile. */
function readPidFile(path: string): number[] {
  try {
    return readFileSync(path, 'utf8').trim().split(' ').map(Number);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Polls `probe` until it returns true; fails naming the component and its log, with the log's last lines. */
export async function waitUntil(
  what: { name: string; logFile: string; proc?: ManagedProcess },
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (what.proc?.hasExited()) {
      throw new LabStartError(
        `lab: ${what.name} exited during start-up; see ${what.logFile}${logTail(what.logFile)}`,
      );
    }
    if (await probe().catch(() => false)) return;
    await sleep(250);
  }
  throw new LabStartError(
    `lab: ${what.name} not ready after ${Math.round(timeoutMs / 1000)} s; see ${what.logFile}${logTail(what.logFile)}`,
  );
}

/**
 * The last lines of a component's log, indented under the error that names it: CI prints the error,
 * and the folder holding the log may be gone by the time anyone reads it.
 */
export function logTail(logFile: string, lines = 12): string {
  let text: string;
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return '\n  (no log written)';
  }
  const last = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-lines)
    .map((line) => `  | ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
  return last.length === 0 ? '\n  (the log is empty)' : `\n  last lines of the log:\n${last.join('\n')}`;
}
