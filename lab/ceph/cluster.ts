/**
 * A real single-host Ceph cluster as lab processes: 1 mon, 1 mgr, 1 memstore OSD, bootstrapped by hand
 * (no cephadm, no systemd), the `rbd` pool, and the mgr's `restful` API with a key and its certificate.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LabStartError } from '../build/errors.js';
import { eventually } from '../kube-wait.js';
import { httpsGet } from '../net.js';
import { type ManagedProcess, startProcess } from '../process.js';
import { CephAdmin } from './admin-client.js';
import { cephConf, monAddrs } from './ceph-conf.js';

const execFileP = promisify(execFile);

/** The restful API as the fencer sees it. */
export interface RestfulEndpoint {
  readonly url: string;
  readonly keyName: string;
  readonly key: string;
  /** The module's self-signed certificate (PEM): pin it. */
  readonly certificate: string;
  /** The certificate's name (no subjectAltName; CN only). */
  readonly serverName: string;
}

export interface CephCluster {
  readonly fsid: string;
  readonly conf: string;
  readonly dir: string;
  readonly hostIp: string;
  readonly pool: string;
  readonly admin: CephAdmin;
  readonly restful: RestfulEndpoint;
  readonly processes: readonly ManagedProcess[];
  stop(): Promise<void>;
}

export interface StartCephClusterOptions {
  readonly dir: string;
  readonly logDir: string;
  readonly pidDir: string;
  readonly hostIp: string;
  readonly watchTimeoutSeconds: number;
  readonly onStep?: (message: string) => void;
}

const MON_PORTS = { v2: 13300, v1: 16789 } as const;
const RESTFUL_PORT = 18003;
const RESTFUL_KEY_NAME = 'kube-fencer';
const POOL = 'rbd';

const tool = async (command: string, args: readonly string[]): Promise<string> => {
  try {
    return (await execFileP(command, args, { encoding: 'utf8' })).stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new LabStartError(
      `lab ceph: ${command} ${args.join(' ')} failed: ${stderr || (error as Error).message}`,
    );
  }
};

/** Keys, monmap and the mon's store: everything the mon needs before it can start. */
async function prepareMon(dir: string, conf: string, fsid: string, hostIp: string): Promise<void> {
  const monKeyring = join(dir, 'mon.keyring');
  const adminKeyring = join(dir, 'ceph.client.admin.keyring');
  await tool('ceph-authtool', [
    '--create-keyring',
    monKeyring,
    '--gen-key',
    '-n',
    'mon.',
    '--cap',
    'mon',
    'allow *',
  ]);
  await tool('ceph-authtool', [
    '--create-keyring',
    adminKeyring,
    '--gen-key',
    '-n',
    'client.admin',
    ...[
      '--cap',
      'mon',
      'allow *',
      '--cap',
      'osd',
      'allow *',
      '--cap',
      'mgr',
      'allow *',
      '--cap',
      'mds',
      'allow *',
    ],
  ]);
  await tool('ceph-authtool', [monKeyring, '--import-keyring', adminKeyring]);
  const monmap = join(dir, 'monmap');
  await tool('monmaptool', [
    '--create',
    '--fsid',
    fsid,
    '--addv',
    'a',
    monAddrs({ hostIp, monPorts: MON_PORTS }),
    monmap,
  ]);
  await tool('ceph-mon', ['-c', conf, '--mkfs', '-i', 'a', '--monmap', monmap, '--keyring', monKeyring]);
  await tool('cp', [monKeyring, join(dir, 'mon.a', 'keyring')]);
}

/** The mgr modules the lab loads: restful, and the helpers every module imports. */
const MGR_MODULES = ['restful', 'mgr_module.py', 'mgr_util.py'] as const;
const SYSTEM_MGR_MODULES = '/usr/share/ceph/mgr';

function linkMgrModules(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const name of MGR_MODULES) symlinkSync(join(SYSTEM_MGR_MODULES, name), join(dir, name));
}

/** Starts a Ceph daemon in the foreground as a lab process (its own group, a pid file). */
const daemon = (
  o: StartCephClusterOptions,
  conf: string,
  name: string,
  args: readonly string[],
): ManagedProcess =>
  startProcess({
    name,
    command: name.replace(/\..*/, ''),
    args: ['-c', conf, ...args, '-f'],
    logDir: o.logDir,
    pidDir: o.pidDir,
  });

async function startMgr(o: StartCephClusterOptions, conf: string, admin: CephAdmin): Promise<ManagedProcess> {
  const { outb } = await admin.mon({
    prefix: 'auth get-or-create',
    entity: 'mgr.x',
    caps: ['mon', 'allow profile mgr', 'osd', 'allow *', 'mds', 'allow *'],
  });
  writeFileSync(join(o.dir, 'mgr.x', 'keyring'), outb);
  return daemon(o, conf, 'ceph-mgr', ['-i', 'x']);
}

async function startOsd(o: StartCephClusterOptions, conf: string, admin: CephAdmin): Promise<ManagedProcess> {
  const uuid = randomUUID();
  const key = (await tool('ceph-authtool', ['--gen-print-key'])).trim();
  // The key must be registered before --mkfs, which fetches the mon's config with it.
  const { outb } = await admin.mon({ prefix: 'osd new', uuid }, JSON.stringify({ cephx_secret: key }));
  const id = outb.trim();
  mkdirSync(join(o.dir, `osd.${id}`), { recursive: true });
  writeFileSync(join(o.dir, `osd.${id}`, 'keyring'), `[osd.${id}]\n\tkey = ${key}\n`);
  await tool('ceph-osd', ['-c', conf, '-i', id, '--mkfs', '--osd-uuid', uuid]);
  return daemon(o, conf, 'ceph-osd', ['-i', id]);
}

/** The restful module serves only once it has a certificate; the key is the fencer's password. */
async function setUpRestful(admin: CephAdmin, hostIp: string): Promise<RestfulEndpoint> {
  await eventually(
    'ceph mgr available',
    async () =>
      (await admin.monJson<{ available: boolean }>({ prefix: 'mgr stat' })).available ? true : undefined,
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  await admin.mgr({ prefix: 'restful create-self-signed-cert' });
  const key = (await admin.mgr({ prefix: 'restful create-key', key_name: RESTFUL_KEY_NAME })).outb.trim();
  const certificate = (await admin.mon({ prefix: 'config-key get', key: 'mgr/restful/x/crt' })).outb;
  const url = `https://${hostIp}:${RESTFUL_PORT}/`;
  await eventually(
    'ceph-mgr restful API listening',
    async () => {
      const services = await admin.monJson<{ restful?: string }>({ prefix: 'mgr services' });
      if (!services.restful) return undefined;
      // Any HTTP answer means the server is up; the certificate is checked by the fencer, not here.
      return (await httpsGet(url)).status > 0 ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  return { url, keyName: RESTFUL_KEY_NAME, key, certificate, serverName: 'ceph-restful' };
}

/**
 * Bootstraps the cluster in `o.dir` and waits until the OSD is up, the `rbd` pool is initialised and the
 * restful API answers. Stops whatever it started if a step fails.
 */
export async function startCephCluster(o: StartCephClusterOptions): Promise<CephCluster> {
  const step = o.onStep ?? (() => {});
  for (const sub of ['mon.a', 'mgr.x', 'run', 'crash']) mkdirSync(join(o.dir, sub), { recursive: true });
  linkMgrModules(join(o.dir, 'mgr-modules'));
  const fsid = randomUUID();
  const conf = join(o.dir, 'ceph.conf');
  writeFileSync(
    conf,
    cephConf({
      fsid,
      dir: o.dir,
      logDir: o.logDir,
      hostIp: o.hostIp,
      monPorts: MON_PORTS,
      watchTimeoutSeconds: o.watchTimeoutSeconds,
    }),
  );
  const processes: ManagedProcess[] = [];
  let admin: CephAdmin | undefined;
  const stop = async (): Promise<void> => {
    // Throwaway daemons on memstore: SIGKILL is safe, and SIGTERM makes the OSD take seconds.
    await admin?.stop();
    await Promise.all(processes.map((p) => p.kill()));
  };
  try {
    await prepareMon(o.dir, conf, fsid, o.hostIp);
    processes.push(daemon(o, conf, 'ceph-mon', ['-i', 'a']));
    admin = await CephAdmin.start({ conf, logDir: o.logDir, pidDir: o.pidDir, timeoutSeconds: 30 });
    step('ceph mon in quorum');
    const theAdmin = admin;
    const [mgr, osd] = await Promise.all([
      startMgr(o, conf, theAdmin),
      startOsd(o, conf, theAdmin),
      theAdmin.mon({
        prefix: 'config set',
        who: 'mgr',
        name: 'mgr/restful/x/server_addr',
        value: o.hostIp,
        force: true,
      }),
      theAdmin.mon({
        prefix: 'config set',
        who: 'mgr',
        name: 'mgr/restful/x/server_port',
        value: String(RESTFUL_PORT),
        force: true,
      }),
      theAdmin.mon({ prefix: 'osd pool create', pool: POOL, pg_num: 8, pgp_num: 8 }),
    ]);
    processes.push(mgr, osd);
    const [restful] = await Promise.all([
      setUpRestful(theAdmin, o.hostIp).then((r) => {
        step('ceph mgr restful API ready');
        return r;
      }),
      // Initialising the pool writes to it: it returns once the OSD is up and the PGs are active.
      theAdmin.poolInit(POOL).then(() => step('ceph osd up, pool rbd ready')),
    ]);
    return {
      fsid,
      conf,
      dir: o.dir,
      hostIp: o.hostIp,
      pool: POOL,
      admin: theAdmin,
      restful,
      processes,
      stop,
    };
  } catch (error) {
    const exited = processes.find((p) => p.hasExited());
    await stop();
    if (exited)
      throw new LabStartError(`lab ceph: ${exited.name} exited during start-up; see ${exited.logFile}`, {
        cause: error,
      });
    throw error;
  }
}
