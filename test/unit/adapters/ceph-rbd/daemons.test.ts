/** The Ceph daemons' addresses a fence must spare: the mons from `mon dump`, the mgr from its URLs. */
import { describe, expect, it } from 'vitest';
import type { MonCommand } from '../../../../lib/adapters/ceph-rbd/commands.js';
import {
  hostOfEntityAddr,
  mgrOfUrl,
  parseMonDump,
  readStorageDaemons,
} from '../../../../lib/adapters/ceph-rbd/daemons.js';
import { CephApiError } from '../../../../lib/adapters/ceph-rbd/errors.js';
import type { RestfulClient } from '../../../../lib/adapters/ceph-rbd/restful-client.js';
import { MON_DUMP_OUTB } from './fixtures.js';

const clientAnswering = (outb: string, sent: MonCommand[] = []) =>
  ({
    run: async (command: MonCommand) => {
      sent.push(command);
      return { outb, outs: '', attempts: 1 };
    },
  }) as unknown as RestfulClient;

describe('the storage daemons’ addresses', () => {
  it('reads each mon’s addresses from the monmap, v2 and v1, IPv4 and IPv6, without ports', () => {
    expect(parseMonDump(MON_DUMP_OUTB)).toEqual([
      { name: 'mon.a', addresses: ['10.77.0.1'] },
      { name: 'mon.b', addresses: ['fd00::7'] },
    ]);
    expect(hostOfEntityAddr('10.77.0.1:16789/0')).toBe('10.77.0.1');
    expect(hostOfEntityAddr('[fd00::7]:3300')).toBe('fd00::7');
    expect(hostOfEntityAddr('mon-a.example:6789')).toBeUndefined();
  });

  it('takes the mgr’s address from a restful URL only when its host is an IP', () => {
    expect(mgrOfUrl('https://10.77.0.1:18003/')).toEqual([
      { name: 'mgr at https://10.77.0.1:18003/', addresses: ['10.77.0.1'] },
    ]);
    expect(mgrOfUrl('https://[fd00::9]:8003/')).toEqual([
      { name: 'mgr at https://[fd00::9]:8003/', addresses: ['fd00::9'] },
    ]);
    expect(mgrOfUrl('https://ceph-mgr.example:8003/')).toEqual([]);
  });

  it('asks the mon for `mon dump` in JSON through restful, and adds the mgrs', async () => {
    const sent: MonCommand[] = [];
    const daemons = await readStorageDaemons(clientAnswering(MON_DUMP_OUTB, sent), [
      'https://10.0.0.5:8003/',
    ]);
    expect(sent).toEqual([{ prefix: 'mon dump', fields: { format: 'json' } }]);
    expect(daemons.source).toBe('mon dump and the restful URLs');
    expect(daemons.daemons.map((d) => d.name)).toEqual(['mon.a', 'mon.b', 'mgr at https://10.0.0.5:8003/']);
  });

  it('fails, never answers "no daemons", on a monmap it cannot read', async () => {
    for (const outb of ['', '{"mons":[]}', '{"mons":[{"name":"a"}]}']) {
      const error = await readStorageDaemons(clientAnswering(outb), []).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CephApiError);
      expect((error as CephApiError).fault).toBe('CommandFailed');
      expect((error as Error).message).toContain('unreadable monmap');
    }
  });
});
