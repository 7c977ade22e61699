/**
 * Bootstrapping the lab cluster's daemons by hand (no cephadm, no systemd): keys, monmap and the mon's
 * store, then the mgr and the memstore OSD, each a lab process in the foreground.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LabStartError } from '../build/errors.js';
import { type ManagedProcess, startProcess } from '../process.js';
import type { CephAdmin } from './admin-client.js';
import { monAddrs } from './ceph-conf.js';

const execFileP = promisify(execFile);

/** Where the mon listens on the lab's bridge address (msgr2, msgr1). */
export const MON_PORTS = { v2: 13300, v1: 16789 } as const;

/** Where a daemon's files and logs go. */
export interface DaemonDirs {
  readonly dir: string;
  readonly logDir: string;
  readonly pidDir: string;
}

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
export async function prepareMon(dir: string, conf: string, fsid: string, hostIp: string): Promise<void> {
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

export function linkMgrModules(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const name of MGR_MODULES) symlinkSync(join(SYSTEM_MGR_MODULES, name), join(dir, name));
}

/** Starts a Ceph daemon in the foreground as a lab process (its own group, a pid file). */
export const daemon = (o: DaemonDirs, conf: string, name: string, args: readonly string[]): ManagedProcess =>
  startProcess({
    name,
    command: name.replace(/\..*/, ''),
    args: ['-c', conf, ...args, '-f'],
    logDir: o.logDir,
    pidDir: o.pidDir,
  });

export async function startMgr(o: DaemonDirs, conf: string, admin: CephAdmin): Promise<ManagedProcess> {
  const { outb } = await admin.mon({
    prefix: 'auth get-or-create',
    entity: 'mgr.x',
    caps: ['mon', 'allow profile mgr', 'osd', 'allow *', 'mds', 'allow *'],
  });
  writeFileSync(join(o.dir, 'mgr.x', 'keyring'), outb);
  return daemon(o, conf, 'ceph-mgr', ['-i', 'x']);
}

export async function startOsd(o: DaemonDirs, conf: string, admin: CephAdmin): Promise<ManagedProcess> {
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
