/**
 * The lab's storage network: a bridge for the Ceph daemons and one network namespace per Ceph-using
 * node, each with its own address. Ceph tells clients apart by their source address, so on plain
 * loopback every node would be 127.0.0.1 and fencing one would fence them all (and the daemons too).
 *
 * Names are unique per lab run, so two labs can run at once. The bridge carries only traffic between
 * the lab's own processes: the namespaces have no default route and the host does not forward. A state
 * file lets a later lab remove what a killed owner left behind.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LabStartError } from '../build/errors.js';
import { withLock } from '../build/lock.js';
import { cacheRoot } from '../paths.js';

const execFileP = promisify(execFile);

/** The /16 the lab carves its per-run /24s from: private, and not a range this machine routes. */
const LAB_PREFIX = '10.77';
const STATE_FILE = 'ceph-net.json';

/** One node's place on the storage network. */
export interface NodeNet {
  readonly node: string;
  /** The namespace its Ceph clients run in (`ip netns exec <netns> …`). */
  readonly netns: string;
  /** Its address: what Ceph sees, and the Node's InternalIP. */
  readonly ip: string;
  /** The host end of its veth pair, on the bridge (down = the node's storage network is cut). */
  readonly hostVeth: string;
}

/** The bridge and namespaces of one lab run. */
export interface CephNetwork {
  readonly bridge: string;
  /** The daemons' (and the admin CLI's) address on the bridge. */
  readonly hostIp: string;
  readonly subnet: string;
  readonly nodes: ReadonlyMap<string, NodeNet>;
  node(name: string): NodeNet;
  /** Takes a node's link down or up (its storage network fails or heals). */
  setLink(name: string, up: boolean): Promise<void>;
  teardown(): Promise<void>;
}

interface NetState {
  readonly owner: number;
  readonly bridge: string;
  readonly netns: readonly string[];
}

const ip = async (...args: string[]): Promise<string> => {
  try {
    return (await execFileP('ip', args, { encoding: 'utf8' })).stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new LabStartError(`lab ceph: ip ${args.join(' ')} failed: ${stderr || (error as Error).message}`);
  }
};

const quietly = (promise: Promise<unknown>): Promise<void> =>
  promise.then(
    () => undefined,
    () => undefined,
  );

const tryQuietly = (fn: () => unknown): void => {
  try {
    fn();
  } catch {
    // already gone
  }
};

/** Networks of this process that are up: removed on exit too (a test file that throws, a Ctrl-C). */
const live = new Map<string, NetState>();
process.once('exit', () => {
  // Only synchronous work is possible here. The clients inside are killed by lab/process.ts's own exit
  // handler; a namespace whose last process is gone disappears with its veth.
  for (const state of live.values()) {
    for (const netns of state.netns) {
      tryQuietly(() => execFileSync('ip', ['netns', 'del', netns], { stdio: 'ignore' }));
    }
    tryQuietly(() => execFileSync('ip', ['link', 'del', state.bridge], { stdio: 'ignore' }));
  }
});

/** The third octets of 10.77.x.0/24 already on some interface of this machine (other labs' bridges). */
async function subnetsInUse(): Promise<Set<number>> {
  const out = await ip('-4', '-o', 'addr', 'show');
  const used = new Set<number>();
  for (const m of out.matchAll(new RegExp(`inet ${LAB_PREFIX.replace('.', '\\.')}\\.(\\d+)\\.`, 'g'))) {
    used.add(Number(m[1]));
  }
  return used;
}

/**
 * Creates the bridge (a free 10.77.x.0/24, host end .1) and a namespace per node (.2, .3, …).
 * `stateDir` holds the state file the reaper reads. Undoes everything if a step fails.
 */
export async function createCephNetwork(nodes: readonly string[], stateDir: string): Promise<CephNetwork> {
  if (process.getuid?.() !== 0) {
    throw new LabStartError('lab ceph: network namespaces need root (CAP_NET_ADMIN); run the lab as root');
  }
  const id = randomBytes(3).toString('hex');
  const bridge = `kfcbr${id}`;
  const namespaces: string[] = [];
  const statePath = join(stateDir, STATE_FILE);
  const save = () => {
    const state: NetState = { owner: process.pid, bridge, netns: [...namespaces] };
    live.set(bridge, state);
    writeFileSync(statePath, JSON.stringify(state));
  };
  let third = 0;
  const teardown = async (): Promise<void> => {
    await removeNetwork({ owner: process.pid, bridge, netns: namespaces });
    live.delete(bridge);
    rmSync(statePath, { force: true });
  };
  try {
    // Pick and claim a subnet under a lock, so two labs starting together never share one.
    await withLock(join(cacheRoot(), 'ceph-net.lock'), async () => {
      const used = await subnetsInUse();
      third = [...Array(250).keys()].map((i) => i + 1).find((n) => !used.has(n)) ?? 0;
      if (third === 0)
        throw new LabStartError(`lab ceph: no free ${LAB_PREFIX}.x.0/24 left for a lab bridge`);
      save();
      await ip('link', 'add', bridge, 'type', 'bridge');
      await ip('addr', 'add', `${LAB_PREFIX}.${third}.1/24`, 'dev', bridge);
      await ip('link', 'set', bridge, 'up');
    });
    const nets = new Map<string, NodeNet>();
    for (const [i, node] of nodes.entries()) {
      const netns = `kfc-${id}-${node}`;
      const hostVeth = `kfv${id}${i.toString(36)}`;
      const address = `${LAB_PREFIX}.${third}.${i + 2}`;
      namespaces.push(netns);
      save();
      await ip('netns', 'add', netns);
      await ip('link', 'add', hostVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns);
      await ip('link', 'set', hostVeth, 'master', bridge, 'up');
      await ip('-n', netns, 'addr', 'add', `${address}/24`, 'dev', 'eth0');
      await ip('-n', netns, 'link', 'set', 'eth0', 'up');
      await ip('-n', netns, 'link', 'set', 'lo', 'up');
      nets.set(node, { node, netns, ip: address, hostVeth });
    }
    const node = (name: string): NodeNet => {
      const n = nets.get(name);
      if (!n)
        throw new Error(
          `lab ceph: node ${name} has no storage network (nodes: ${[...nets.keys()].join(', ')})`,
        );
      return n;
    };
    return {
      bridge,
      hostIp: `${LAB_PREFIX}.${third}.1`,
      subnet: `${LAB_PREFIX}.${third}.0/24`,
      nodes: nets,
      node,
      setLink: async (name, up) => {
        await ip('link', 'set', node(name).hostVeth, up ? 'up' : 'down');
      },
      teardown,
    };
  } catch (error) {
    await teardown();
    throw error;
  }
}

/** Deletes namespaces (their veths go with them) and the bridge; what is already gone is fine. */
async function removeNetwork(state: NetState): Promise<void> {
  for (const netns of state.netns) {
    // A process still inside would keep the namespace alive: the lab's clients are gone by now, but a
    // killed owner's may not be.
    const pids = await ip('netns', 'pids', netns).catch(() => '');
    for (const pid of pids.split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await quietly(ip('netns', 'del', netns));
  }
  await quietly(ip('link', 'del', state.bridge));
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Removes the storage networks of lab runs whose owner is gone (a test runner killed outright).
 * Scans `<runsRoot>/<run>/ceph/ceph-net.json`.
 */
export async function reapOrphanNetworks(runsRoot: string): Promise<string[]> {
  const reaped: string[] = [];
  let runs: string[] = [];
  try {
    runs = readdirSync(runsRoot);
  } catch {
    return reaped;
  }
  for (const run of runs) {
    const path = join(runsRoot, run, 'ceph', STATE_FILE);
    if (!existsSync(path)) continue;
    let state: NetState;
    try {
      state = JSON.parse(readFileSync(path, 'utf8')) as NetState;
    } catch {
      continue;
    }
    if (alive(state.owner)) continue;
    await removeNetwork(state);
    rmSync(path, { force: true });
    reaped.push(`${run}: ${state.bridge}`);
  }
  return reaped;
}
