/**
 * A missing toolchain or a failed build ends `npm run lab:build` with one clear line that names the
 * component and its log file, not a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../lab/paths.js';

function labBuild(env: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'lab', 'cli', 'build.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, KUBE_FENCER_CACHE: mkdtempSync(join(tmpdir(), 'kf-cache-')), ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, stderr: r.stderr };
}

const lines = (s: string): string[] => s.split('\n').filter((l) => l.trim() !== '');

describe('lab build errors', () => {
  it('names the missing Go toolchain and its log in one line', () => {
    const { status, stderr } = labBuild({ PATH: dirname(process.execPath) });
    expect(status).toBe(1);
    const last = lines(stderr).at(-1) ?? '';
    expect(last).toMatch(/^lab build: Go toolchain not found on PATH .* see \/\S+go-toolchain\.log$/);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('names the component that failed to build and its log in one line', () => {
    // An empty module cache and no module proxy: the first go build cannot fetch its modules.
    const { status, stderr } = labBuild({
      GOMODCACHE: mkdtempSync(join(tmpdir(), 'kf-gomod-')),
      GOPROXY: 'off',
    });
    expect(status).toBe(1);
    const last = lines(stderr).at(-1) ?? '';
    expect(last).toMatch(/^lab build: building etcd failed \(go build exit 1\); see \/\S+build-etcd\.log$/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
