/**
 * The lab's Ceph: a real cluster (Debian's Ceph 16.2, installed on first use), a storage network with a
 * namespace per node, node users, images, and the nodes' librbd clients. Usable on its own
 * (`startCephLab`) and from `startLab({ ceph: true })`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot } from '../paths.js';
import { reapOrphans } from '../process.js';
import type { CephAdmin, Watcher } from './admin-client.js';
import { type CephCluster, type RestfulEndpoint, startCephCluster } from './cluster.js';
import { Holder } from './holder.js';
import { type CephNetwork, createCephNetwork, type NodeNet, reapOrphanNetworks } from './network.js';
import { ensureCephPackages } from './packages.js';
import { checkWatchers, type WatcherCheck } from './watcher-check.js';

export interface CephLabOptions {
  /** The nodes that use Ceph: each gets a namespace, an address and a cephx user `client.<node>`. */
  readonly nodes: readonly string[];
  /** A lab run's folder (startLab passes its own); standalone, a new run folder in the cache. */
  readonly runDir?: string;
  /** How long an OSD keeps a dead client's watch. @default 30 (Ceph's default) */
  readonly watchTimeoutSeconds?: number;
  /** How often the nodes' clients write. @default 500 */
  readonly writeIntervalMs?: number;
  readonly onStep?: (message: string) => void;
}

/** One entry of `osd blocklist ls`, as the admin sees it (Ceph's own spelling). */
export interface AdminBlocklistEntry {
  readonly kind: 'addr' | 'range';
  /** `10.77.3.2:0/2976520395` or, for a range, `10.77.3.2:0/32`. */
  readonly value: string;
  readonly until: string;
}

export interface CephLab {
  readonly runDir: string;
  readonly fsid: string;
  readonly conf: string;
  readonly pool: string;
  /** The daemons' address on the lab's bridge. */
  readonly hostIp: string;
  readonly subnet: string;
  readonly restful: RestfulEndpoint;
  /**
   * The fencer's witness, as a deployment gives it: a read-only cephx user (`mon 'allow r'`, `osd 'profile
   * rbd-read-only pool=<pool>'`) and its keyring (docs/ceph.md).
   */
  readonly witness: { readonly user: string; readonly keyring: string };
  readonly admin: CephAdmin;
  readonly network: CephNetwork;
  readonly components: readonly { readonly name: string; readonly pid: number; readonly logFile: string }[];
  /** A node's address on the storage network (its InternalIP in the lab). */
  address(node: string): string;
  /** Creates an image in the pool (default 64 MiB). */
  createImage(image: string, sizeMiB?: number): Promise<void>;
  /** The image header's watchers, as client.admin sees them. */
  watchers(image: string): Promise<Watcher[]>;
  /** `osd blocklist ls`, as client.admin sees it. */
  blocklist(): Promise<AdminBlocklistEntry[]>;
  /** What ceph-csi's NodeStage checks, from the node's namespace as its own user. */
  checkWatchers(node: string, image: string): Promise<WatcherCheck>;
  /** Starts the node's client of an image (opens, locks, writes periodically). */
  hold(node: string, image: string): Holder;
  /** Every client started so far, oldest first (ended ones included). */
  holders(): readonly Holder[];
  /** The node crashes: its clients die without releasing anything. */
  killClients(node: string): Promise<void>;
  stop(): Promise<void>;
}

const runsRoot = (): string => join(cacheRoot(), 'runs');

/**
 * Parses `osd blocklist ls -f json` the plain way (Pacific prints two arrays back to back). Written
 * apart from the fencer's parser on purpose: tests compare the two.
 */
function parseAdminBlocklist(outb: string): AdminBlocklistEntry[] {
  const lists = JSON.parse(`[${outb.trim().replace(/\]\s*\[/, '],[')}]`) as {
    addr?: string;
    range?: string;
    until: string;
  }[][];
  return lists
    .flat()
    .map((e) =>
      e.range !== undefined
        ? { kind: 'range', value: e.range, until: e.until }
        : { kind: 'addr', value: e.addr ?? '', until: e.until },
    );
}

/**
 * Starts the lab's Ceph: packages (first use only), the storage network, the cluster, and a cephx user
 * per node. Ready in about 15 s on an idle machine. Stop it with `stop()`; a killed owner's daemons,
 * clients and network are reaped by the next lab.
 */
export async function startCephLab(options: CephLabOptions): Promise<CephLab> {
  const step = options.onStep ?? (() => {});
  await ensureCephPackages();
  reapOrphans(runsRoot());
  await reapOrphanNetworks(runsRoot());
  mkdirSync(runsRoot(), { recursive: true });
  const runDir = options.runDir ?? (await mkdtemp(join(runsRoot(), 'ceph-')));
  const dir = join(runDir, 'ceph');
  const logDir = join(runDir, 'logs');
  const pidDir = join(runDir, 'pids');
  for (const d of [dir, logDir, pidDir]) mkdirSync(d, { recursive: true });

  const holders: Holder[] = [];
  let network: CephNetwork | undefined;
  let cluster: CephCluster | undefined;
  const stop = async (): Promise<void> => {
    await Promise.all(holders.map((h) => h.kill()));
    await cluster?.stop();
    await network?.teardown();
    // The mon's store is the only sizeable thing left; the logs stay for debugging.
    for (const sub of ['mon.a', 'mgr.x', 'osd.0']) rmSync(join(dir, sub), { recursive: true, force: true });
  };
  try {
    network = await createCephNetwork(options.nodes, dir);
    step(`ceph network ${network.subnet} ready (${options.nodes.join(', ')})`);
    cluster = await startCephCluster({
      dir,
      logDir,
      pidDir,
      hostIp: network.hostIp,
      watchTimeoutSeconds: options.watchTimeoutSeconds ?? 30,
      onStep: step,
    });
    const c = cluster;
    const net = network;
    await createNodeUsers(c, options.nodes);
    const witness = await createWitnessUser(c);
    const image = (name: string) => ({ pool: c.pool, image: name });
    return {
      runDir,
      fsid: c.fsid,
      conf: c.conf,
      pool: c.pool,
      hostIp: c.hostIp,
      subnet: net.subnet,
      restful: c.restful,
      witness,
      admin: c.admin,
      network: net,
      components: c.processes.map((p) => ({ name: p.name, pid: p.pid, logFile: p.logFile })),
      address: (node) => net.node(node).ip,
      createImage: (name, sizeMiB = 64) => c.admin.createImage(c.pool, name, sizeMiB * 1024 * 1024),
      watchers: (name) => c.admin.watchers(c.pool, name),
      blocklist: async () =>
        parseAdminBlocklist((await c.admin.mon({ prefix: 'osd blocklist ls', format: 'json' })).outb),
      checkWatchers: (node, name) =>
        checkWatchers({ conf: c.conf, netns: net.node(node).netns, node, ...image(name) }),
      hold(node, name) {
        const nodeNet: NodeNet = net.node(node);
        const holder = new Holder({
          conf: c.conf,
          netns: nodeNet.netns,
          node,
          ...image(name),
          intervalMs: options.writeIntervalMs ?? 500,
          logDir,
          pidDir,
        });
        holders.push(holder);
        return holder;
      },
      holders: () => [...holders],
      killClients: async (node) => {
        await Promise.all(holders.filter((h) => h.node === node).map((h) => h.kill()));
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A cephx user per node with ceph-csi's node caps (`profile rbd`), its keyring where `client.<node>` looks. */
async function createNodeUsers(cluster: CephCluster, nodes: readonly string[]): Promise<void> {
  await Promise.all(
    nodes.map(async (node) => {
      const { outb } = await cluster.admin.mon({
        prefix: 'auth get-or-create',
        entity: `client.${node}`,
        caps: [
          'mon',
          'profile rbd',
          'osd',
          `profile rbd pool=${cluster.pool}`,
          'mgr',
          `profile rbd pool=${cluster.pool}`,
        ],
      });
      writeFileSync(join(cluster.dir, `ceph.client.${node}.keyring`), outb);
    }),
  );
}

/** The fencer's read-only witness: it may read the images' watchers, and nothing else. */
async function createWitnessUser(cluster: CephCluster): Promise<CephLab['witness']> {
  const user = 'kube-fencer-witness';
  const { outb } = await cluster.admin.mon({
    prefix: 'auth get-or-create',
    entity: `client.${user}`,
    caps: ['mon', 'allow r', 'osd', `profile rbd-read-only pool=${cluster.pool}`],
  });
  const keyring = join(cluster.dir, `ceph.client.${user}.keyring`);
  writeFileSync(keyring, outb);
  return { user, keyring };
}
