/**
 * The Ceph RBD storage fencer against the lab's real Ceph 16.2 cluster: fence, verify and lift through
 * the ceph-mgr restful API, with real librbd clients in their nodes' network namespaces holding images.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CephLab, startCephLab } from '../../../lab/ceph/ceph-lab.js';
import type { Holder } from '../../../lab/ceph/holder.js';
import { eventually } from '../../../lab/kube-wait.js';
import type { CephRbdStorageFencer } from '../../../lib/adapters/ceph-rbd/ceph-storage-fencer.js';
import {
  CephApiError,
  CephInputError,
  NoAddressToFenceError,
} from '../../../lib/adapters/ceph-rbd/errors.js';
import { RestfulClient } from '../../../lib/adapters/ceph-rbd/restful-client.js';
import type { ListedFenceEntry } from '../../../lib/domain/blocklist.js';
import {
  cephFencerFor,
  EBLOCKLISTED,
  holdLocked,
  waitBlocklistedWrite,
  waitNoWatcherAt,
} from '../../support/ceph.js';

const DAY_MS = 86_400_000;

let ceph: CephLab;
let fencer: CephRbdStorageFencer;
const others: CephRbdStorageFencer[] = [];
const target = (node: string) => ({ node, addresses: [ceph.address(node)] });
const other = (overrides: Parameters<typeof cephFencerFor>[1]) => {
  const f = cephFencerFor(ceph, overrides);
  others.push(f);
  return f;
};

beforeAll(async () => {
  ceph = await startCephLab({ nodes: ['node-a', 'node-b', 'node-c'] });
  fencer = cephFencerFor(ceph);
  await Promise.all(['vol-a', 'vol-c', 'vol-c2'].map((image) => ceph.createImage(image)));
});

afterAll(async () => {
  for (const f of [fencer, ...others]) f?.close();
  await ceph?.stop();
});

describe('fencing node-a while its client holds vol-a', () => {
  let holderA: Holder;
  let added: readonly ListedFenceEntry[] = [];
  let confirmedAt = 0;

  it('sees node-a unfenced, and vol-a still being used from node-b’s side', async () => {
    holderA = await holdLocked(ceph, 'node-a', 'vol-a');

    const evidence = await fencer.verify(target('node-a'));

    expect(evidence.confirmed).toBe(false);
    expect(evidence.found).toEqual([]);
    expect(evidence.missing).toEqual([
      {
        kind: 'range',
        entry: `${ceph.address('node-a')}/32`,
        source: `InternalIP ${ceph.address('node-a')}`,
      },
    ]);
    expect(await ceph.checkWatchers('node-b', 'vol-a')).toMatchObject({
      inUse: true,
      message: 'rbd image rbd/vol-a is still being used',
    });
  });

  it('changes nothing in a dry run', async () => {
    const outcome = await fencer.fence(target('node-a'), { dryRun: true });

    expect(outcome).toMatchObject({
      kind: 'dry-run',
      wouldAdd: [{ kind: 'range', entry: `${ceph.address('node-a')}/32` }],
    });
    expect(await ceph.blocklist()).toEqual([]);
  });

  it('fences node-a: the range is listed for the configured week, its writes fail with errno 108, its watch is gone', async () => {
    const before = Date.now();
    const outcome = await fencer.fence(target('node-a'), { dryRun: false });
    confirmedAt = Date.now() / 1000;

    expect(outcome.kind).toBe('fenced');
    if (outcome.kind !== 'fenced') return;
    added = outcome.added;
    expect(added.map((e) => [e.kind, e.entry])).toEqual([['range', `${ceph.address('node-a')}/32`]]);
    expect(outcome.evidence.confirmed).toBe(true);
    // What Ceph itself lists, read apart from the fencer (client.admin, its own parser).
    const listed = await ceph.blocklist();
    expect(listed.map((e) => [e.kind, e.value])).toEqual([['range', `${ceph.address('node-a')}:0/32`]]);
    const until = Date.parse(added[0]?.until ?? '');
    expect(until).toBeGreaterThan(before + 7 * DAY_MS - 60_000);
    expect(until).toBeLessThan(Date.now() + 7 * DAY_MS + 60_000);

    const refused = await waitBlocklistedWrite(holderA);
    expect(refused.error).toContain('ConnectionShutdown');
    await waitNoWatcherAt(ceph, 'vol-a', [ceph.address('node-a')]);
    expect(await fencer.verify(target('node-a'))).toMatchObject({ confirmed: true, missing: [] });
  });

  it('lets node-b take vol-a; node-a’s writes issued after the fence all failed; lock breaking adds node-a’s exact address', async () => {
    expect(await ceph.checkWatchers('node-b', 'vol-a')).toEqual({ inUse: false });
    const holderB = await holdLocked(ceph, 'node-b', 'vol-a');
    await holderB.waitFor('a write', (e) => e.event === 'write' && e.ok === true);

    const late = holderA.writes().filter((w) => (w.started ?? 0) > confirmedAt);
    expect(late.length).toBeGreaterThan(0);
    expect(late.filter((w) => w.ok)).toEqual([]);
    expect(late.every((w) => w.errno === EBLOCKLISTED)).toBe(true);
    const [owner] = await ceph.admin.lockers(ceph.pool, 'vol-a');
    expect(owner?.addr.startsWith(`${ceph.address('node-b')}:`)).toBe(true);
    expect(JSON.parse((await ceph.admin.read(ceph.pool, 'vol-a', 200)).trim())).toMatchObject({
      node: 'node-b',
    });

    // librbd blocklists the stale lock owner's exact address (1 h) when it breaks the lock.
    const lockBreak = await eventually('lock-break entry for node-a', async () =>
      (await ceph.blocklist()).find(
        (e) => e.kind === 'addr' && e.value.startsWith(`${ceph.address('node-a')}:0/`),
      ),
    );
    const evidence = await fencer.verify(target('node-a'));
    expect(evidence.confirmed).toBe(true);
    expect(evidence.related.map((r) => r.entry)).toEqual([lockBreak.value]);
  });

  it('fencing again changes nothing', async () => {
    const before = await ceph.blocklist();

    const outcome = await fencer.fence(target('node-a'), { dryRun: false });

    expect(outcome.kind).toBe('already-fenced');
    expect(await ceph.blocklist()).toEqual(before);
  });

  it('refuses to lift an entry it does not make, changing nothing', async () => {
    const before = await ceph.blocklist();
    const lockBreak = before.find((e) => e.kind === 'addr');

    await expect(
      fencer.lift({ node: 'node-a', entries: [lockBreak?.value ?? ''] }, { dryRun: false }),
    ).rejects.toThrow(CephInputError);
    expect(await ceph.blocklist()).toEqual(before);
  });

  it('lifts exactly its own entries: the lock-break entry and other people’s entries stay', async () => {
    await ceph.admin.mon({
      prefix: 'osd blocklist',
      range: 'range',
      blocklistop: 'add',
      addr: '10.99.0.0/24',
    });
    await ceph.admin.mon({
      prefix: 'osd blocklist',
      blocklistop: 'add',
      addr: `${ceph.address('node-b')}:0/4242`,
    });
    const before = await ceph.blocklist();

    const dry = await fencer.lift({ node: 'node-a', entries: added.map((e) => e.entry) }, { dryRun: true });
    expect(dry).toEqual({ kind: 'dry-run', wouldRemove: [`${ceph.address('node-a')}/32`] });
    expect(await ceph.blocklist()).toEqual(before);

    const outcome = await fencer.lift(
      { node: 'node-a', entries: added.map((e) => e.entry) },
      { dryRun: false },
    );

    expect(outcome).toEqual({ kind: 'lifted', removed: [`${ceph.address('node-a')}/32`] });
    const after = (await ceph.blocklist()).map((e) => e.value).sort();
    const expected = before
      .filter((e) => e.value !== `${ceph.address('node-a')}:0/32`)
      .map((e) => e.value)
      .sort();
    expect(after).toEqual(expected);
    expect(after).toContain('10.99.0.0:0/24');
    expect(after).toContain(`${ceph.address('node-b')}:0/4242`);
    expect(
      await fencer.lift({ node: 'node-a', entries: added.map((e) => e.entry) }, { dryRun: false }),
    ).toMatchObject({
      kind: 'nothing-to-lift',
    });
    // A new client on node-a reaches the cluster again: it sees node-b's watch instead of errno 108.
    expect(await ceph.checkWatchers('node-a', 'vol-a')).toMatchObject({ inUse: true });
  });
});

describe('what counts as proof', () => {
  it('renews a range that is about to lapse rather than calling the node fenced', async () => {
    const ip = ceph.address('node-c');
    await ceph.admin.mon({
      prefix: 'osd blocklist',
      range: 'range',
      blocklistop: 'add',
      addr: `${ip}/32`,
      expire: 120.5, // a JSON real: the mon refuses 120
    });

    const lapsing = await fencer.verify(target('node-c'));
    expect(lapsing.confirmed).toBe(false);
    expect(lapsing.missing[0]?.until).toBeDefined();

    const outcome = await fencer.fence(target('node-c'), { dryRun: false });
    expect(outcome.kind).toBe('fenced');
    if (outcome.kind !== 'fenced') return;
    expect(Date.parse(outcome.added[0]?.until ?? '')).toBeGreaterThan(Date.now() + 6 * DAY_MS);
    // Ceph keeps the old expiry when an entry is added again: the fencer removed and re-added it,
    // under a cover entry that is gone again.
    const listed = (await ceph.blocklist()).filter((e) => e.value.startsWith(`${ip}:`));
    expect(listed.map((e) => [e.kind, e.value])).toEqual([['range', `${ip}:0/32`]]);
    expect(Date.parse(listed[0]?.until.replace(/(\.\d{3})\d*\+0000$/, '$1Z') ?? '')).toBeGreaterThan(
      Date.now() + 6 * DAY_MS,
    );
    await fencer.lift({ node: 'node-c', entries: outcome.added.map((e) => e.entry) }, { dryRun: false });
  });

  it('renews exactly the recorded entries it is given, and reads them as Ceph lists them', async () => {
    const ip = ceph.address('node-c');
    const neighbour = '10.99.7.0/24'; // listed, lapsing, and on no record: never the fencer's to lengthen
    for (const addr of [`${ip}/32`, neighbour]) {
      await ceph.admin.mon({
        prefix: 'osd blocklist',
        range: 'range',
        blocklistop: 'add',
        addr,
        expire: 300.5,
      });
    }
    const request = { node: 'node-c', entries: [`${ip}/32`, '10.99.8.0/24'] };
    const read = await fencer.readRecorded(request);
    expect(read.map((r) => [r.entry, r.until === null])).toEqual([
      [`${ip}/32`, false],
      ['10.99.8.0/24', true],
    ]);
    expect(Date.parse(read[0]?.until ?? '')).toBeLessThan(Date.now() + 301_000);
    expect(fencer.renewWithinSeconds).toBe(302_400); // half the week

    expect(await fencer.renew({ node: 'node-c', entries: [`${ip}/32`] }, { dryRun: true })).toEqual({
      kind: 'dry-run',
      wouldRenew: [`${ip}/32`],
    });
    const outcome = await fencer.renew({ node: 'node-c', entries: [`${ip}/32`] }, { dryRun: false });
    expect(outcome.kind).toBe('renewed');
    const listed = await ceph.blocklist();
    const until = (value: string) =>
      Date.parse(listed.find((e) => e.value === value)?.until.replace(/(\.\d{3})\d*\+0000$/, '$1Z') ?? '');
    expect(until(`${ip}:0/32`)).toBeGreaterThan(Date.now() + 6 * DAY_MS);
    expect(until('10.99.7.0:0/24')).toBeLessThan(Date.now() + 301_000);
    expect(listed.map((e) => e.value)).not.toContain(`${ip}:0/0`); // the cover is gone again
    for (const addr of [`${ip}/32`, neighbour]) {
      await ceph.admin.mon({ prefix: 'osd blocklist', range: 'range', blocklistop: 'rm', addr });
    }
  });

  it('refuses to read or renew an entry the fencer never makes, before any call', async () => {
    for (const call of [
      () => fencer.readRecorded({ node: 'node-c', entries: ['not-an-entry'] }),
      () => fencer.renew({ node: 'node-c', entries: ['10.0.0.5:6789/1234'] }, { dryRun: false }),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(CephInputError);
    }
  });

  it('does not take what a mon without ranges makes of one (the client with nonce 32) for the range', async () => {
    const ip = ceph.address('node-c');
    // Without `range`, the mon reads `<ip>/32` as the single client `<ip>:0/32`, and says it succeeded.
    await ceph.admin.mon({ prefix: 'osd blocklist', blocklistop: 'add', addr: `${ip}/32` });
    expect((await ceph.blocklist()).map((e) => [e.kind, e.value])).toContainEqual(['addr', `${ip}:0/32`]);

    const evidence = await fencer.verify(target('node-c'));

    expect(evidence.confirmed).toBe(false);
    expect(evidence.related.map((r) => r.entry)).toEqual([`${ip}:0/32`]);
    await ceph.admin.mon({ prefix: 'osd blocklist', blocklistop: 'rm', addr: `${ip}:0/32` });
  });
});

describe('clusters without range blocklists', () => {
  for (const [dialect, image] of [
    ['blocklist', 'vol-c'],
    ['blacklist', 'vol-c2'],
  ] as const) {
    it(`fences with IP-wide address entries in the ${dialect} dialect, and lifts them`, async () => {
      const holder = await holdLocked(ceph, 'node-c', image);
      const legacy = other({ dialect });

      const outcome = await legacy.fence(target('node-c'), { dryRun: false });

      expect(outcome.kind).toBe('fenced');
      if (outcome.kind !== 'fenced') return;
      expect(outcome.added.map((e) => [e.kind, e.entry])).toEqual([
        ['address', `${ceph.address('node-c')}:0/0`],
      ]);
      await waitBlocklistedWrite(holder);
      await waitNoWatcherAt(ceph, image, [ceph.address('node-c')]);
      expect(
        await legacy.lift({ node: 'node-c', entries: outcome.added.map((e) => e.entry) }, { dryRun: false }),
      ).toEqual({
        kind: 'lifted',
        removed: [`${ceph.address('node-c')}:0/0`],
      });
      expect((await ceph.blocklist()).map((e) => e.value)).not.toContain(`${ceph.address('node-c')}:0/0`);
    });
  }
});

describe('failures', () => {
  it('says auth refused for a wrong key, and mutates nothing', async () => {
    const before = await ceph.blocklist();

    const error = await other({ key: 'not-the-key', dialect: 'range' })
      .fence(target('node-c'), { dryRun: false })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CephApiError);
    expect(error).toMatchObject({
      name: 'ProviderApiError',
      fault: 'AuthRefused',
      retryable: false,
      httpStatus: 401,
    });
    expect(await ceph.blocklist()).toEqual(before);
  });

  it('says the mgr is unreachable when nothing listens at its URL', async () => {
    const error = await other({ mgrUrl: `https://${ceph.hostIp}:18999/`, attempts: 2, backoffMs: 50 })
      .verify(target('node-c'))
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ fault: 'MgrUnreachable', retryable: true, attempts: 2 });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('refuses the mgr’s certificate under another name (the pin is checked, not skipped)', async () => {
    const error = await other({ serverName: 'ceph-mgr.example' })
      .verify(target('node-c'))
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ fault: 'MgrUnreachable', retryable: false });
  });

  it('refuses a node that has no address to fence', async () => {
    await expect(fencer.fence({ node: 'bare-metal-7', addresses: [] }, { dryRun: false })).rejects.toThrow(
      NoAddressToFenceError,
    );
  });

  it('reads Ceph’s refusal of a command (HTTP 200, state failed) as a failed command', async () => {
    const client = adminRestful();
    try {
      // `expire` sent as a string (or a JSON integer) is what the mon refuses; the fencer sends a real.
      const error = await client
        .run({
          prefix: 'osd blocklist',
          fields: { range: 'range', blocklistop: 'add', addr: '10.77.250.0/24', expire: '600' },
        })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ fault: 'CommandFailed', retryable: false, httpStatus: 200 });
      expect((error as CephApiError).cephMessage).toContain("bad or missing field 'expire'");
      expect((await ceph.blocklist()).map((e) => e.value)).not.toContain('10.77.250.0:0/24');
    } finally {
      client.close();
    }
  });
});

describe('a node with several addresses', () => {
  const several = {
    node: 'node-multi',
    addresses: ['10.77.250.11', '10.77.250.12', '10.77.250.13', '10.77.250.14'],
  };
  const osdEpoch = async (client: RestfulClient): Promise<number> =>
    (
      JSON.parse((await client.run({ prefix: 'osd dump', fields: { format: 'json' } })).outb) as {
        epoch: number;
      }
    ).epoch;

  it('is fenced and lifted one command per request, the mgr answering after each', async () => {
    const client = adminRestful();
    try {
      const before = await osdEpoch(client);
      const fenced = await fencer.fence(several, { dryRun: false });
      const afterFence = await osdEpoch(client);
      const lifted = await fencer.lift(
        { node: several.node, entries: several.addresses.map((a) => `${a}/32`) },
        { dryRun: false },
      );
      const afterLift = await osdEpoch(client);

      expect(fenced).toMatchObject({ kind: 'fenced' });
      expect(lifted).toMatchObject({ kind: 'lifted', removed: several.addresses.map((a) => `${a}/32`) });
      // One command per request (the Pacific mgr crashed completing multi-command requests): an epoch
      // per change at most, and one stray epoch of the idle cluster allowed.
      const n = several.addresses.length;
      expect(afterFence - before).toBeGreaterThanOrEqual(1);
      expect(afterFence - before).toBeLessThanOrEqual(n + 1);
      expect(afterLift - afterFence).toBeGreaterThanOrEqual(1);
      expect(afterLift - afterFence).toBeLessThanOrEqual(n + 1);
      const listed = (await ceph.blocklist()).map((e) => e.value);
      for (const a of several.addresses) expect(listed).not.toContain(`${a}:0/32`);
    } finally {
      client.close();
    }
  });
});

/** A restful client with the lab's key, for reads and commands the fencer never sends. */
const adminRestful = (): RestfulClient =>
  new RestfulClient({
    urls: [ceph.restful.url],
    keyName: ceph.restful.keyName,
    key: ceph.restful.key,
    ca: ceph.restful.certificate,
    serverName: ceph.restful.serverName,
    timeoutMs: 10_000,
    attempts: 1,
    backoffMs: 0,
  });
