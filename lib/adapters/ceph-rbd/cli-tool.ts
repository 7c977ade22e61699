/**
 * Ceph's own command-line tools (`rbd`, `ceph` from Debian's ceph-common), run as the fencer's read-only
 * cephx user: how the fencer reads what Ceph itself says (watchers, the blocklist, the monmap) apart
 * from whatever changed it. Each run is bounded by a timeout and by the caller's signal.
 */
import { execFile } from 'node:child_process';
import { StorageFault } from '../../ports/storage-fencer.js';
import { CephApiError } from './errors.js';

/** How the tools reach Ceph, and as whom. */
export interface CephToolSettings {
  /** The read-only cephx user, without `client.` (`kube-fencer-witness`). */
  readonly user: string;
  /** Its keyring file. */
  readonly keyring: string;
  /** The mons (`10.0.0.1:6789,10.0.0.2:6789`), unless `conf` names them. */
  readonly monHost?: string;
  /** A ceph.conf to read instead of the default. */
  readonly conf?: string;
  /** The `rbd` tool. @default `rbd` on the PATH */
  readonly rbdPath?: string;
  /** The `ceph` tool. @default `ceph` on the PATH */
  readonly cephPath?: string;
  readonly timeoutMs?: number;
}

/**
 * Runs `tool args… <connection options> trailing…` as the read-only user; resolves with its stdout, or
 * rejects with a CephApiError.
 */
export function runCephTool(
  tool: 'rbd' | 'ceph',
  args: readonly string[],
  settings: CephToolSettings,
  operation: string,
  signal?: AbortSignal,
  trailing: readonly string[] = [],
): Promise<string> {
  const s = settings;
  const argv = [
    ...args,
    '--id',
    s.user,
    '--keyring',
    s.keyring,
    ...(s.conf ? ['--conf', s.conf] : []),
    ...(s.monHost ? ['--mon-host', s.monHost] : []),
    ...trailing,
  ];
  const path = tool === 'rbd' ? (s.rbdPath ?? 'rbd') : (s.cephPath ?? 'ceph');
  return new Promise((resolve, reject) => {
    execFile(
      path,
      argv,
      { timeout: s.timeoutMs ?? 10_000, ...(signal ? { signal } : {}), maxBuffer: 4 << 20 },
      (error, stdout, stderr) => {
        if (!error) {
          resolve(stdout);
          return;
        }
        const why = `${stderr.trim().split('\n').at(-1) || error.message}`;
        const fault = /EACCES|permission denied|\(13\)|\(1\) Operation not permitted/i.test(why)
          ? StorageFault.AuthRefused
          : /ENOENT: spawn|not found/.test(error.message)
            ? StorageFault.CommandFailed
            : StorageFault.MgrUnreachable;
        reject(
          new CephApiError({ fault, operation, retryable: fault !== StorageFault.AuthRefused }, why, {
            cause: error,
          }),
        );
      },
    );
  });
}
