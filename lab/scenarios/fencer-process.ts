import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../../lib/app/fence/report.js';
import type { Lab } from '../lab.js';
import { REPO_ROOT } from '../paths.js';

export interface FencerRun {
  readonly child: ChildProcess;
  /** Resolves when the process exits. `report` is parsed when `--output json` was given. */
  readonly done: Promise<{ code: number | null; stdout: string; stderr: string; report?: RunReport }>;
}

/** The built command, as `npm install -g` installs it (npm run build makes dist/; the test setup does too). */
export const FENCER_BIN = join(REPO_ROOT, 'bin', 'fencer.js');

/**
 * Runs the built `fencer` (or `command` instead of `node bin/fencer.js`) as its own process with exactly
 * `env`, telling `onLine` each line of its standard output as it comes. The one way every test and lab
 * scenario runs the CLI.
 */
export function spawnFencer(
  args: readonly string[],
  options: {
    readonly env: NodeJS.ProcessEnv;
    readonly command?: readonly string[];
    readonly onLine?: (line: string) => void;
  },
): FencerRun {
  const [command, ...prefix] = options.command ?? [process.execPath, FENCER_BIN];
  const child = spawn(command ?? process.execPath, [...prefix, ...args], {
    cwd: REPO_ROOT,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) options.onLine?.(line);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string; report?: RunReport }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => {
        let report: RunReport | undefined;
        if (args.includes('json')) {
          try {
            report = JSON.parse(stdout) as RunReport;
          } catch {
            report = undefined;
          }
        }
        resolve({ code, stdout, stderr, ...(report ? { report } : {}) });
      });
    },
  );
  return { child, done };
}

/**
 * Runs the real `fencer` CLI, as built, as its own process against the lab, as user kube-fencer
 * (RBAC-bound, audited). `env` is added to the process's environment (e.g. libfaketime's, to skew its clock);
 * `command` runs another build of it (the soak's sabotaged CLI).
 */
export function startFencer(
  lab: Lab,
  args: readonly string[],
  onLine?: (line: string) => void,
  env: Readonly<Record<string, string>> = {},
  command?: readonly string[],
): FencerRun {
  if (!existsSync(join(REPO_ROOT, 'dist', 'fencer.js'))) {
    throw new Error('the fencer CLI is not built: run npm run build');
  }
  // As user kube-fencer, unless the arguments name another identity's kubeconfig.
  const kubeconfig = args.includes('--kubeconfig') ? [] : ['--kubeconfig', lab.fencerKubeconfigPath];
  return spawnFencer([...args, ...kubeconfig], {
    env: { ...process.env, ...lab.fencerEnv, ...env },
    ...(onLine ? { onLine } : {}),
    ...(command ? { command } : {}),
  });
}

/** Runs `fencer` to completion. */
export const runFencer = (lab: Lab, args: readonly string[]) => startFencer(lab, args).done;
