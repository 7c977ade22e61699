/**
 * The fencer's decisions over a scripted mon: what it sends, and what it concludes from what it reads
 * back. The real cluster is in test/integration/ceph-rbd; a mon that accepts a fence and then does not
 * list it (an old release reading a range as a nonce, a lost proposal) cannot be made to happen there.
 */
import { describe, expect, it } from 'vitest';
import { CephRbdStorageFencer } from '../../../../lib/adapters/ceph-rbd/ceph-storage-fencer.js';
import type { MonCommand } from '../../../../lib/adapters/ceph-rbd/commands.js';
import {
  CephApiError,
  CephInputError,
  NoAddressToFenceError,
} from '../../../../lib/adapters/ceph-rbd/errors.js';
import { RestfulClient } from '../../../../lib/adapters/ceph-rbd/restful-client.js';
import { parseCephRbdSettings } from '../../../../lib/adapters/ceph-rbd/settings.js';
import { MON_DUMP_OUTB, PACIFIC_NO_RANGE_COMMANDS, PACIFIC_RANGE_COMMANDS } from './fixtures.js';

const NOW = new Date('2026-12-01T00:00:00.000Z');
const settings = parseCephRbdSettings({
  mgrUrl: 'https://10.0.0.5:8003/',
  keyName: 'kube-fencer',
  key: 'k',
  ca: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----',
});

/**
 * A mon with a blocklist in memory. Like Ceph 16.2, adding an entry that exists keeps its old expiry.
 * `listsWhatItAdds: false` is a mon that accepts and forgets.
 */
class ScriptedMon extends RestfulClient {
  readonly sent: MonCommand[] = [];
  /** The commands of each request, in order: a request may carry several (`runThenRead`). */
  readonly requests: MonCommand[][] = [];
  entries = new Map<string, string>();

  constructor(
    private readonly listsWhatItAdds = true,
    private readonly commands = PACIFIC_RANGE_COMMANDS,
  ) {
    super({
      urls: ['https://127.0.0.1:1/'],
      keyName: 'k',
      key: 'k',
      ca: '',
      serverName: 'x',
      timeoutMs: 1,
      attempts: 1,
      backoffMs: 0,
    });
  }

  override async run(command: MonCommand) {
    this.requests.push([command]);
    return this.#apply(command);
  }

  override async runThenRead(commands: readonly MonCommand[], read: MonCommand) {
    this.requests.push([...commands, read]);
    for (const command of commands) await this.#apply(command);
    return this.#apply(read);
  }

  async #apply(command: MonCommand) {
    this.sent.push(command);
    const f = command.fields ?? {};
    if (command.prefix === 'get_command_descriptions') return { outb: this.commands, outs: '', attempts: 1 };
    if (command.prefix === 'mon dump')
      return { outb: MON_DUMP_OUTB, outs: 'dumped monmap epoch 2', attempts: 1 };
    if (command.prefix.endsWith(' ls')) {
      const addrs = [...this.entries]
        .filter(([k]) => !k.startsWith('r '))
        .map(([k, until]) => ({ addr: k, until }));
      const ranges = [...this.entries]
        .filter(([k]) => k.startsWith('r '))
        .map(([k, until]) => ({ range: `${k.slice(2).replace('/', ':0/')}`, until }));
      return { outb: JSON.stringify(addrs) + JSON.stringify(ranges), outs: '', attempts: 1 };
    }
    const key = f.range ? `r ${f.addr}` : String(f.addr);
    if (f.blocklistop === 'add' && this.listsWhatItAdds)
      this.entries.set(key, '2026-12-08T00:00:00.000000+0000');
    if (f.blocklistop === 'rm') this.entries.delete(key);
    return { outb: '', outs: 'ok', attempts: 1 };
  }
}

const fencerWith = (mon: ScriptedMon, now: () => Date = () => NOW) =>
  new CephRbdStorageFencer({ settings, client: mon, now });
const nodeA = { node: 'node-a', addresses: ['10.77.0.2'] };
const mutations = (mon: ScriptedMon) => mon.sent.filter((c) => c.fields?.blocklistop !== undefined);

describe('CephRbdStorageFencer: which volumes it proves', () => {
  it('names the ceph-csi clusters it reaches when told them, none (every cluster of its drivers) when not', () => {
    const mon = new ScriptedMon();
    expect(fencerWith(mon).storageClusters).toBeNull();
    const told = new CephRbdStorageFencer({
      settings: parseCephRbdSettings({ ...settings, clusterIds: ['rook-ceph'] }),
      client: mon,
      now: () => NOW,
    });
    expect(told.storageClusters).toEqual(['rook-ceph']);
    expect(told.fencesVolume({ driver: 'rook-ceph.rbd.csi.ceph.com' })).toBe(true);
    expect(told.storageClusterOf({ attributes: { clusterID: 'rook-ceph-external' } })).toBe(
      'rook-ceph-external',
    );
  });
});

describe('CephRbdStorageFencer over a scripted mon', () => {
  it('adds each missing range with the configured expiry, then confirms by reading the list back', async () => {
    const mon = new ScriptedMon();

    const outcome = await fencerWith(mon).fence(nodeA, { dryRun: false });

    expect(outcome.kind).toBe('fenced');
    expect(mutations(mon)).toEqual([
      {
        prefix: 'osd blocklist',
        fields: { range: 'range', blocklistop: 'add', addr: '10.77.0.2/32' },
        floats: { expire: 604800 },
      },
    ]);
    expect(mon.sent.at(-1)?.prefix).toBe('osd blocklist ls');
  });

  it('sends every entry of a node, then the listing that proves them', async () => {
    const mon = new ScriptedMon();
    const fencer = fencerWith(mon);
    const twoAddresses = { node: 'node-a', addresses: ['10.77.0.2', '10.200.0.7'] };
    await fencer.verify(twoAddresses);
    mon.requests.length = 0;

    const outcome = await fencer.fence(twoAddresses, { dryRun: false });

    expect(outcome.kind).toBe('fenced');
    expect(mon.requests.map((r) => r.map((c) => `${c.prefix} ${c.fields?.addr ?? ''}`.trim()))).toEqual([
      ['osd blocklist ls'],
      ['osd blocklist 10.77.0.2/32', 'osd blocklist 10.200.0.7/32', 'osd blocklist ls'],
    ]);
  });

  it('fails as not confirmed when the mon accepts a fence but does not list it', async () => {
    const mon = new ScriptedMon(false);

    const error = await fencerWith(mon)
      .fence(nodeA, { dryRun: false })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CephApiError);
    expect(error).toMatchObject({ fault: 'BlocklistNotConfirmed', retryable: true });
    expect((error as Error).message).toContain('10.77.0.2/32');
  });

  it('changes nothing in a dry run and says what it would add', async () => {
    const mon = new ScriptedMon();

    const outcome = await fencerWith(mon).fence(nodeA, { dryRun: true });

    expect(outcome).toMatchObject({ kind: 'dry-run', wouldAdd: [{ kind: 'range', entry: '10.77.0.2/32' }] });
    expect(mutations(mon)).toEqual([]);
  });

  it('refuses a node without addresses before talking to Ceph', async () => {
    const mon = new ScriptedMon();

    await expect(fencerWith(mon).fence({ node: 'bare', addresses: [] }, { dryRun: false })).rejects.toThrow(
      NoAddressToFenceError,
    );
    expect(mon.sent).toEqual([]);
  });

  it('lifts only recorded entries that are listed, and refuses a foreign entry before any call', async () => {
    const mon = new ScriptedMon();
    mon.entries.set('r 10.77.0.2/32', '2026-12-08T00:00:00.000000+0000');
    mon.entries.set('10.77.0.2:0/2976520395', '2026-12-01T01:00:00.000000+0000');

    await expect(
      fencerWith(mon).lift(
        { node: 'node-a', entries: ['10.77.0.2/32', '10.77.0.2:0/2976520395'] },
        { dryRun: false },
      ),
    ).rejects.toThrow(CephInputError);
    expect(mon.sent).toEqual([]);

    const outcome = await fencerWith(mon).lift(
      { node: 'node-a', entries: ['10.77.0.2/32', '10.77.0.9/32'] },
      { dryRun: false },
    );
    expect(outcome).toEqual({ kind: 'lifted', removed: ['10.77.0.2/32'] });
    expect([...mon.entries.keys()]).toEqual(['10.77.0.2:0/2976520395']);
    // The removal, then the listing that proves it.
    expect(mon.requests.at(-1)?.map((c) => `${c.prefix} ${c.fields?.blocklistop ?? ''}`.trim())).toEqual([
      'osd blocklist rm',
      'osd blocklist ls',
    ]);
  });

  it('lengthens a lapsing range without a gap: cover the address, remove and re-add the range, uncover', async () => {
    const mon = new ScriptedMon();
    mon.entries.set('r 10.77.0.2/32', '2026-12-01T00:10:00.000000+0000');

    const outcome = await fencerWith(mon).fence(nodeA, { dryRun: false });

    expect(
      mutations(mon).map((c) => `${c.fields?.blocklistop} ${c.fields?.range ?? 'addr'} ${c.fields?.addr}`),
    ).toEqual([
      'add addr 10.77.0.2:0/0',
      'rm range 10.77.0.2/32',
      'add range 10.77.0.2/32',
      'rm addr 10.77.0.2:0/0',
    ]);
    expect(outcome).toMatchObject({
      kind: 'fenced',
      added: [{ entry: '10.77.0.2/32', until: '2026-12-08T00:00:00.000Z' }],
    });
    expect([...mon.entries.keys()]).toEqual(['r 10.77.0.2/32']);
  });

  it('leaves an address entry that lapses too soon on a cluster without ranges, and says why', async () => {
    const mon = new ScriptedMon(true, PACIFIC_NO_RANGE_COMMANDS);
    mon.entries.set('10.77.0.2:0/0', '2026-12-01T00:10:00.000000+0000');

    const error = await fencerWith(mon)
      .fence(nodeA, { dryRun: false })
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ fault: 'BlocklistNotConfirmed', retryable: false });
    expect((error as Error).message).toContain('lengthen it by hand');
    expect(mutations(mon)).toEqual([]);
    expect(mon.entries.get('10.77.0.2:0/0')).toBe('2026-12-01T00:10:00.000000+0000');
  });

  it('asks the mon for its dialect once and remembers it', async () => {
    const mon = new ScriptedMon();
    const fencer = fencerWith(mon);

    await fencer.verify(nodeA);
    await fencer.verify(nodeA);

    expect(mon.sent.filter((c) => c.prefix === 'get_command_descriptions')).toHaveLength(1);
  });
});

describe('the storage daemons’ addresses', () => {
  it('names the mons of the monmap and the mgr of the URL, and asks the mon again only after five minutes', async () => {
    const mon = new ScriptedMon();
    let now = NOW.getTime();
    const fencer = fencerWith(mon, () => new Date(now));
    const dumps = () => mon.sent.filter((c) => c.prefix === 'mon dump').length;

    const daemons = await fencer.storageDaemons();
    expect(daemons.daemons).toEqual([
      { name: 'mon.a', addresses: ['10.77.0.1'] },
      { name: 'mon.b', addresses: ['fd00::7'] },
      { name: 'mgr at https://10.0.0.5:8003/', addresses: ['10.0.0.5'] },
    ]);
    now += 4 * 60_000;
    expect(await fencer.storageDaemons()).toEqual(daemons);
    expect(dumps()).toBe(1);
    now += 2 * 60_000;
    await fencer.storageDaemons();
    expect(dumps()).toBe(2);
  });
});
