/**
 * A real single-host Ceph cluster as lab processes: 1 mon, 1 mgr, 1 memstore OSD, bootstrapped by hand
 * (no cephadm, no systemd), the `rbd` pool, and the mgr's `restful` API with a key and its certificate.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabStartError } from '../build/errors.js';
import { eventually } from '../kube-wait.js';
import { httpsGet } from '../net.js';
import { logTail, type ManagedProcess } from '../process.js';
import { CephAdmin } from './admin-client.js';
import { cephConf } from './ceph-conf.js';
import { daemon, linkMgrModules, MON_PORTS, prepareMon, startMgr, startOsd } from './daemons.js';

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

const RESTFUL_PORT = 18003;
const RESTFUL_KEY_NAME = 'kube-fencer';
const POOL = 'rbd';

/** The restful module serves only once it has a certificate; the key is the fencer's password. */
async function setUpRestful(admin: CephAdmin, hostIp: string): Promise<RestfulEndpoint> {
  await eventually(
    'ceph mgr available',
    async () =>
      (await admin.monJson<{ available: boolean }>({ prefix: 'mgr stat' })).available ? true : undefined,
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  await admin.mgr({ prefix: 'restful create-self-signed-cert' });
  // The module reloads its key table when its server thread starts (`refresh_keys` replaces the dict): a
  // create-key that lands in between fails with a KeyError. Asked again, it answers the stored key.
  const key = await eventually(
    'ceph restful create-key',
    async () => (await admin.mgr({ prefix: 'restful create-key', key_name: RESTFUL_KEY_NAME })).outb.trim(),
    { timeoutMs: 30_000, intervalMs: 250 },
  );
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
      throw new LabStartError(
        `lab ceph: ${exited.name} exited during start-up; see ${exited.logFile}${logTail(exited.logFile)}`,
        {
          cause: error,
        },
      );
    throw error;
  }
}
