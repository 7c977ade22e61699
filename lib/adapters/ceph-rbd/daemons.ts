/**
 * The Ceph daemons' own addresses, so that a fence never covers them (blocklisting the mons' or the
 * mgr's address cuts the cluster's own clients off, the mgr's librados included). What is used:
 * - the mons, from `mon dump` (the monmap: each mon's public address vector, v2 and v1) sent through
 *   the mgr `restful` API like every other command. No configured `mon host` is needed or read;
 * - the mgr, from the host of each configured `restful` URL when it is an IP literal (the module
 *   serves on the mgr's own address). A host name is not resolved: its address is not checked.
 * OSDs are not listed: the monmap and the restful URLs are what the fencer can read without another
 * command; an OSD on a node's storage address would also be a node's address (checked against Nodes).
 */
import type { AddressHolder } from '../../domain/storage-scope.js';
import type { StorageDaemons } from '../../ports/storage-fencer.js';
import type { MonCommand } from './commands.js';
import { CephApiError } from './errors.js';
import type { RestfulClient } from './restful-client.js';

export const MON_DUMP: MonCommand = { prefix: 'mon dump', fields: { format: 'json' } };

/** How long the daemons' addresses are kept before `mon dump` is asked again (the monmap rarely moves). */
export const DAEMONS_TTL_MS = 5 * 60_000;

/** `10.77.0.1` from `10.77.0.1:6789/0` or `10.77.0.1:3300`; `fd00::1` from `[fd00::1]:3300/0`. */
export function hostOfEntityAddr(addr: string): string | undefined {
  const v6 = /^\[([^\]]+)\]/.exec(addr);
  if (v6) return v6[1];
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?::|$)/.exec(addr);
  return v4?.[1];
}

interface MonDump {
  mons?: {
    name?: string;
    addr?: string;
    public_addr?: string;
    public_addrs?: { addrvec?: { addr?: string }[] };
  }[];
}

/** The mons and their addresses from `mon dump -f json`; throws on anything unreadable. */
export function parseMonDump(outb: string): AddressHolder[] {
  const dump = JSON.parse(outb) as MonDump;
  if (!Array.isArray(dump.mons) || dump.mons.length === 0) throw new Error('mon dump lists no mons');
  return dump.mons.map((mon) => {
    const texts = [mon.addr, mon.public_addr, ...(mon.public_addrs?.addrvec ?? []).map((a) => a.addr)];
    const addresses = [...new Set(texts.flatMap((t) => (t ? (hostOfEntityAddr(t) ?? []) : [])))];
    if (addresses.length === 0) throw new Error(`mon ${mon.name ?? '?'} has no address`);
    return { name: `mon.${mon.name ?? '?'}`, addresses };
  });
}

/** The mgr's address from a restful URL whose host is an IP literal, or nothing. */
export function mgrOfUrl(url: string): AddressHolder[] {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return hostOfEntityAddr(host.includes(':') ? `[${host}]` : host)
    ? [{ name: `mgr at ${url}`, addresses: [host] }]
    : [];
}

/** Reads the daemons' addresses; an unreadable monmap is a failed command, never "no daemons". */
export async function readStorageDaemons(
  client: RestfulClient,
  mgrUrls: readonly string[],
  signal?: AbortSignal,
): Promise<StorageDaemons> {
  const answer = await client.run(MON_DUMP, signal);
  let mons: AddressHolder[];
  try {
    mons = parseMonDump(answer.outb);
  } catch (error) {
    throw new CephApiError(
      { fault: 'CommandFailed', operation: MON_DUMP.prefix, retryable: false, cephMessage: answer.outs },
      `unreadable monmap: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return { source: 'mon dump and the restful URLs', daemons: [...mons, ...mgrUrls.flatMap(mgrOfUrl)] };
}
