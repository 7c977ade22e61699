/**
 * cfn-lint (PyPI, AWS's own CloudFormation linter: every resource's schema, every intrinsic), pinned and
 * installed once into a venv in the lab's cache, outside the repository, as the EC2 emulator is.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lock } from 'proper-lockfile';
import { cacheRoot } from '../../lab/paths.js';

export const CFN_LINT_VERSION = '1.58.0';

/** The path of a working `cfn-lint`, installing it first if this machine has none of this version. */
export async function ensureCfnLint(): Promise<string> {
  const home = join(cacheRoot(), `cfn-lint-${CFN_LINT_VERSION}`);
  const bin = join(home, 'venv', 'bin', 'cfn-lint');
  const stamp = join(home, 'installed');
  if (existsSync(stamp)) return bin;
  mkdirSync(home, { recursive: true });
  const release = await lock(home, { retries: { retries: 120, minTimeout: 1000, maxTimeout: 1000 } });
  try {
    if (!existsSync(stamp)) {
      execFileSync('python3', ['-m', 'venv', join(home, 'venv')], { stdio: 'inherit' });
      execFileSync(
        join(home, 'venv', 'bin', 'pip'),
        ['install', '--quiet', `cfn-lint==${CFN_LINT_VERSION}`],
        {
          stdio: 'inherit',
        },
      );
      writeFileSync(stamp, `${new Date().toISOString()}\n`);
    }
  } finally {
    await release();
  }
  return bin;
}
