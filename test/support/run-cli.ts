/**
 * Runs the built `fencer` (bin/fencer.js → dist/, as installed) in its own process, with an environment
 * of its own: a fresh HOME (no ~/.kube, no ~/.aws), no KUBECONFIG, no AWS variables, unless given.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FENCER_BIN, spawnFencer } from '../../lab/scenarios/fencer-process.js';

/** The built command, as installed. */
export const FENCER = FENCER_BIN;

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

/** Runs `node bin/fencer.js ...args` (or `command` instead of node) to completion, isolated by default. */
export async function runCli(
  args: readonly string[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly command?: readonly string[] } = {},
): Promise<CliResult> {
  const run = spawnFencer(args, {
    env: options.env ?? isolatedEnv(),
    ...(options.command ? { command: options.command } : {}),
  });
  const { code, stdout, stderr } = await run.done;
  return { code, stdout, stderr };
}

/** The lines of a stream's text, without the trailing newline. */
export const linesOf = (text: string): string[] =>
  text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
