/** Whether a build is newer than everything it is made from: builds that are current are not redone. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time under `path`, leaving out the lab's Go trees and installed packages. */
function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((entry) => entry !== 'go' && entry !== 'node_modules')
    .reduce((newest, entry) => Math.max(newest, newestChange(join(path, entry))), stat.mtimeMs);
}

/** Whether `built` (a path under `root`) exists and is newer than every one of `sources` that exists. */
export function builtAfterSources(root: string, built: string, sources: readonly string[]): boolean {
  const entry = join(root, built);
  if (!existsSync(entry)) return false;
  const changedAt = Math.max(
    ...sources
      .map((s) => join(root, s))
      .filter(existsSync)
      .map(newestChange),
  );
  return statSync(entry).mtimeMs > changedAt;
}
