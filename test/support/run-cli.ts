/**
 * Runs the built `fencer` (bin/fencer.js → dist/, as installed) in its own process, with an environment
 * of its own: a fresh HOME (no ~/.kube, no ~/.aws), no KUBECONFIG, no AWS variables, unless given.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../lab/paths.js';

export const FENCER = join(REPO_ROOT, 'bin', 'fencer.js');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** An environment with nothing of the machine's Kubernetes or cloud settings in it. */
export function isolatedEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: mkdtempSync(join(tmpdir(), 'fencer-home-')),
    // The tests are about a machine without an instance role, wherever they run.
    AWS_EC2_METADATA_DISABLED: 'true',
    ...extra,
  };
}

/** Runs `node bin/fencer.js ...args` (or `command` instead of node) to completion. */
export function runCli(
  args: readonly string[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly command?: readonly string[] } = {},
): Promise<CliResult> {
  const [command, ...prefix] = options.command ?? [process.execPath, FENCER];
  const child = spawn(command ?? process.execPath, [...prefix, ...args], {
    cwd: REPO_ROOT,
    env: options.env ?? isolatedEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The lines of a stream's text, without the trailing newline. */
export const linesOf = (text: string): string[] =>
  text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
