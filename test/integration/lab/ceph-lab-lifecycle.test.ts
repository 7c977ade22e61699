/**
 * The lab's Ceph leaves nothing behind (daemons, node clients, namespaces, bridge): after stop(), after
 * its owner throws, and after its owner is killed outright (then the next lab reaps it). Two labs run
 * side by side on their own networks. A package that cannot be installed is one clear line.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type CephLab, startCephLab } from '../../../lab/ceph/ceph-lab.js';
import { reapOrphanNetworks } from '../../../lab/ceph/network.js';
import { ensureCephPackages, missingPackages } from '../../../lab/ceph/packages.js';
import { cacheRoot, REPO_ROOT } from '../../../lab/paths.js';
import { reapOrphans } from '../../../lab/process.js';
import { holdLocked } from '../../support/ceph.js';

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

const namespaces = (): string[] => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n');
const linkExists = (name: string): boolean => {
  try {
    execFileSync('ip', ['link', 'show', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** What a Ceph lab owns on this machine: processes, namespaces, bridge. */
interface Footprint {
  readonly pids: number[];
  readonly netns: string[];
  readonly bridge: string;
}

const footprint = (ceph: CephLab): Footprint => ({
  pids: [...ceph.components.map((c) => c.pid), ...ceph.holders().map((h) => h.pid), ceph.admin.pid],
  netns: [...ceph.network.nodes.values()].map((n) => n.netns),
  bridge: ceph.network.bridge,
});

async function expectNothingLeft(f: Footprint): Promise<void> {
  expect(await allGone(f.pids)).toEqual([]);
  const listed = namespaces();
  expect(f.netns.filter((n) => listed.some((l) => l.startsWith(n)))).toEqual([]);
  expect(linkExists(f.bridge)).toBe(false);
}

/** Starts a Ceph lab with a node client in a child process, prints its footprint, then does `then`. */
async function cephLabInChild(then: 'throw' | 'hang') {
  const script = `
    import { startCephLab } from ${JSON.stringify(join(REPO_ROOT, 'lab', 'ceph', 'ceph-lab.ts'))};
    const ceph = await startCephLab({ nodes: ['node-a'] });
    await ceph.createImage('img');
    const holder = ceph.hold('node-a', 'img');
    await holder.waitFor('lock', (e) => e.event === 'locked');
    console.log('FOOTPRINT ' + JSON.stringify({
      pids: [...ceph.components.map((c) => c.pid), holder.pid, ceph.admin.pid],
      netns: [...ceph.network.nodes.values()].map((n) => n.netns),
      bridge: ceph.network.bridge,
    }));
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
  for (let i = 0; i < 240 && !/FOOTPRINT .*\n/.test(out); i++) await sleep(500);
  const match = /FOOTPRINT (.*)\n/.exec(out);
  if (!match?.[1]) throw new Error(`child Ceph lab did not start:\n${out}`);
  return { footprint: JSON.parse(match[1]) as Footprint, child, exited };
}

// Each test starts one or two whole Ceph clusters: allow for a loaded machine.
describe('the lab’s Ceph lifecycle', { timeout: 300_000 }, () => {
  it('stops every daemon and node client and removes its namespaces and bridge on stop()', async () => {
    const ceph = await startCephLab({ nodes: ['node-a', 'node-b'] });
    await ceph.createImage('img');
    await holdLocked(ceph, 'node-a', 'img');
    const f = footprint(ceph);
    expect(f.pids.length).toBeGreaterThanOrEqual(5);
    expect(f.pids.every(alive)).toBe(true);
    expect(linkExists(f.bridge)).toBe(true);
    // A node's namespace reaches the lab's bridge and nothing else: no default route off the machine.
    const routes = execFileSync('ip', ['-n', ceph.network.node('node-a').netns, 'route'], {
      encoding: 'utf8',
    });
    expect(
      routes
        .trim()
        .split('\n')
        .map((l) => l.trim()),
    ).toEqual([`${ceph.subnet} dev eth0 proto kernel scope link src ${ceph.address('node-a')}`]);

    await ceph.stop();

    await expectNothingLeft(f);
  });

  it('runs two labs at once, each on its own bridge, subnet and cluster', async () => {
    const [one, two] = await Promise.all([
      startCephLab({ nodes: ['node-a'] }),
      startCephLab({ nodes: ['node-a'] }),
    ]);
    try {
      expect(one.network.bridge).not.toBe(two.network.bridge);
      expect(one.subnet).not.toBe(two.subnet);
      expect(one.fsid).not.toBe(two.fsid);
      await Promise.all([one.createImage('img'), two.createImage('img')]);
      // node-a of each lab holds its own cluster's image from its own namespace.
      const [a1, a2] = await Promise.all([
        holdLocked(one, 'node-a', 'img'),
        holdLocked(two, 'node-a', 'img'),
      ]);
      expect(a1.state).toBe('locked');
      expect(a2.state).toBe('locked');
      expect((await one.watchers('img'))[0]?.addr.startsWith(`${one.address('node-a')}:`)).toBe(true);
      expect((await two.watchers('img'))[0]?.addr.startsWith(`${two.address('node-a')}:`)).toBe(true);
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
  });

  it('leaves nothing behind when the owning process fails with an error', async () => {
    const { footprint: f, exited } = await cephLabInChild('throw');
    await exited;
    await expectNothingLeft(f);
  });

  it('reaps the daemons, clients and network of an owner killed with SIGKILL', async () => {
    const { footprint: f, child, exited } = await cephLabInChild('hang');
    child.kill('SIGKILL');
    await exited;
    expect(f.pids.filter(alive).length).toBe(f.pids.length); // orphaned, still running
    expect(linkExists(f.bridge)).toBe(true);

    const runs = join(cacheRoot(), 'runs');
    reapOrphans(runs);
    await reapOrphanNetworks(runs);

    await expectNothingLeft(f);
  });
});

describe('Ceph packages', () => {
  it('are installed (the lab installed them on first use) and checking them again installs nothing', async () => {
    expect(await missingPackages()).toEqual([]);
    const said: string[] = [];
    const out = { write: (line: string) => said.push(line) } as unknown as NodeJS.WritableStream;
    await ensureCephPackages({ out });
    expect(said).toEqual([]);
  });

  it('say in one line what apt could not install and where its log is', { timeout: 300_000 }, async () => {
    const said: string[] = [];
    const out = { write: (line: string) => said.push(line) } as unknown as NodeJS.WritableStream;

    const error = await ensureCephPackages({ packages: ['kube-fencer-no-such-package'], out }).catch(
      (e: unknown) => e,
    );

    expect(error).toMatchObject({ name: 'LabBuildError' });
    expect((error as Error).message).toMatch(
      /^lab ceph: apt-get install failed \(exit 100\); see \/\S+apt-ceph\.log$/,
    );
    expect(said[0]).toMatch(
      /^lab ceph: installing Debian's Ceph 16\.2 packages \(kube-fencer-no-such-package\)/,
    );
  });
});
