/**
 * The lab leaves no process behind: after stop(), after its owner throws, and after its owner is
 * killed outright (then the next lab reaps the orphans).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startLab } from '../../../lab/lab.js';
import { cacheRoot, REPO_ROOT } from '../../../lab/paths.js';
import { reapOrphans } from '../../../lab/process.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function allGone(pids: number[]): Promise<number[]> {
  for (let i = 0; i < 40 && pids.some(alive); i++) await sleep(250);
  return pids.filter(alive);
}

/** Starts a lab in a child process that prints its component pids, then does `then`. */
async function labInChild(
  then: 'throw' | 'hang',
): Promise<{ pids: number[]; child: ReturnType<typeof spawn>; exited: Promise<unknown> }> {
  const script = `
    import { startLab } from ${JSON.stringify(join(REPO_ROOT, 'lab', 'lab.ts'))};
    const lab = await startLab({ nodes: 2 });
    console.log('PIDS ' + lab.components.map((c) => c.pid).join(','));
    ${then === 'throw' ? "throw new Error('a failing test');" : 'setInterval(() => {}, 1000);'}
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let out = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  for (let i = 0; i < 240 && !/PIDS [\d,]+\n/.test(out); i++) await sleep(500);
  const match = /PIDS ([\d,]+)\n/.exec(out);
  if (!match?.[1]) throw new Error(`child lab did not start:\n${out}`);
  return { pids: match[1].split(',').map(Number), child, exited };
}

// Each test starts a whole lab, in this process or a child: allow for a loaded machine.
describe('lab lifecycle', { timeout: 300_000 }, () => {
  it('stops every component process on stop()', async () => {
    const lab = await startLab({ nodes: 2 });
    const pids = lab.components.map((c) => c.pid);
    expect(pids.length).toBeGreaterThanOrEqual(7);
    expect(pids.every(alive)).toBe(true);
    await lab.stop();
    expect(await allGone(pids)).toEqual([]);
  });

  it('stops every component when the owning process fails with an error', async () => {
    const { pids, exited } = await labInChild('throw');
    await exited;
    expect(await allGone(pids)).toEqual([]);
  });

  it('reaps the components of an owner killed with SIGKILL', async () => {
    const { pids, child, exited } = await labInChild('hang');
    child.kill('SIGKILL');
    await exited;
    expect(pids.filter(alive).length).toBe(pids.length); // orphaned, still running
    reapOrphans(join(cacheRoot(), 'runs'));
    expect(await allGone(pids)).toEqual([]);
  });
});
