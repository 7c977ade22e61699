/**
 * The machine's own Node.js: the first `node` on PATH that is not the project's pinned one (npm puts
 * node_modules/.bin first). Function Compute's newest Node.js runtime is nodejs20, and the machine's
 * node is 20, so the lab runs the Function Compute bundles on it. `FENCER_FC_NODE` overrides it.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The path of the machine's `node`, and its version (`v20.x.y`). */
export function machineNode(env: Readonly<Record<string, string | undefined>> = process.env): {
  readonly path: string;
  readonly version: string;
} {
  const candidates = env.FENCER_FC_NODE
    ? [env.FENCER_FC_NODE]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter((dir) => dir !== '' && !dir.includes('node_modules'))
        .map((dir) => join(dir, 'node'));
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
    } catch {
      continue;
    }
    return { path, version: execFileSync(path, ['--version'], { encoding: 'utf8' }).trim() };
  }
  throw new Error('no node on PATH outside node_modules (set FENCER_FC_NODE to a Node.js 20 binary)');
}
