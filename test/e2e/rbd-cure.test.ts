/**
 * The Ceph RBD incident cured by the real `fencer` CLI (its own process, as user kube-fencer, with the
 * lab's Ceph settings in FENCER_CEPH_*): node-a, bare metal (no providerID: no compute provider can
 * power it off, so the storage fence is its only barrier), is cut, its librbd client still connected
 * and writing (the zombie). `fencer fence` blocklists node-a's addresses, confirms them listed, and only then
 * taints; the zombie's writes fail, its watch goes, the replacement runs on node-b. `fencer unfence`
 * keeps everything while node-a has not rebooted, and after a power cycle lifts exactly the fencer's
 * own entries (the unit test unfence-storage.test.ts shows the table without its reboot rule lifting
 * early; here, an early lift fails the check that the ranges stay listed while node-a has not rebooted).
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Holder } from '../../lab/ceph/holder.js';
import { describeInstanceState } from '../../lab/ec2-emulator.js';
import type { Lab } from '../../lab/lab.js';
import { cephOf, waitForRbdRecovery, writesLandedAfter } from '../../lab/scenarios/rbd-incident.js';
import type { StatefulApp } from '../../lab/scenarios/stateful-app.js';
import {
  EBLOCKLISTED,
  expectOnlyWatchersAt,
  waitBlocklistedWrite,
  waitNoWatcherAt,
} from '../support/ceph.js';
import { labWithCutRbdNode } from '../support/cut-node.js';
import { runFencer } from '../support/fencer-cli.js';
import { fencerWrites, taintsOf, waitNodeReady } from '../support/lab-waits.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';
const FENCE = ['--lease-grace', '40', '--output', 'json'];
/** A lock-breaking style entry on node-a's own address that someone else added: never the fencer's. */
const FOREIGN_NONCE = 424242;
const STORAGE_ADDRESSES = 'kube-fencer.io/storage-addresses';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** The /31 that holds `ip` (IPv4): a range, not the address spelled out. */
const slash31Around = (ip: string): string => {
  const octets = ip.split('.').map(Number);
  return `${octets.slice(0, 3).join('.')}.${(octets[3] ?? 0) & ~1}/31`;
};

describe('the Ceph RBD incident, cured by `fencer fence` and undone by `fencer unfence`', () => {
  let lab: Lab;
  let app: StatefulApp;
  let zombie: Holder;
  let ranges: string[];
  let confirmedAt: number;

  const internalIps = async (): Promise<string[]> => {
    const n = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: 'node-a' });
    return (n.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address);
  };
  /** The admin's view of the blocklist, in Ceph's spelling (`<ip>:0/32` for a /32 range). */
  const listed = async (): Promise<string[]> => (await cephOf(lab).blocklist()).map((e) => e.value).sort();
  const lastWriter = async (): Promise<string> =>
    JSON.parse((await cephOf(lab).admin.read(cephOf(lab).pool, app.volumeId, 200)).trim()).node;
  const foreign = () => `${cephOf(lab).address('node-a')}:0/${FOREIGN_NONCE}`;

  beforeAll(async () => {
    ({ lab, app, zombie } = await labWithCutRbdNode({ bareMetal: ['node-a'] }));
    await cephOf(lab).admin.mon({
      prefix: 'osd blocklist',
      blocklistop: 'add',
      // No expire: the mon's default (an hour); a JSON number without a fraction is refused as a real.
      addr: foreign(),
    });
    ranges = (await internalIps()).map((ip) => `${ip}/32`);
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('refuses a declared range that holds Ready node-b’s address, naming node-b, and changes nothing', async () => {
    const core = lab.kubeConfig.makeApiClient(CoreV1Api);
    const declared = slash31Around(cephOf(lab).address('node-b'));
    await core.patchNode(
      { name: 'node-a', body: { metadata: { annotations: { [STORAGE_ADDRESSES]: declared } } } },
      merge,
    );
    await waitNodeReady(lab, 'node-b');
    const writesBefore = fencerWrites(lab).length;
    try {
      const { code, report, stderr } = await runFencer(lab, ['fence', 'node-a', ...FENCE]);

      expect(stderr).toBe('');
      expect(code).toBe(3);
      expect(report?.outcome).toBe('refused');
      expect(report?.reason).toBe('AddressSharedWithOtherNode');
      expect(report?.evidence).toContain(
        `blocklist entry ${declared} covers ${cephOf(lab).address('node-b')}, an address of node node-b`,
      );
      expect(report?.steps.map((s) => s.action).filter(Boolean)).toEqual([]);
      // Nothing mutated: Ceph's own view lists only the foreign entry; no taint; the machine runs.
      expect(await listed()).toEqual([foreign()]);
      expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
      const node = await core.readNode({ name: 'node-a' });
      expect(node.metadata?.annotations?.['kube-fencer.io/fence-record']).toBeUndefined();
      expect(await describeInstanceState(lab.ec2.client, lab.node('node-a').instanceId)).toBe('running');
      expect(
        fencerWrites(lab)
          .slice(writesBefore)
          .filter((w) => !w.includes('events')),
      ).toEqual([]);
    } finally {
      await core.patchNode(
        { name: 'node-a', body: { metadata: { annotations: { [STORAGE_ADDRESSES]: null } } } },
        merge,
      );
    }
  });

  it('blocklists node-a’s addresses, confirms them, and only then taints; node-a has no power API, so its machine is left running', async () => {
    const { code, report, stderr } = await runFencer(lab, ['fence', 'node-a', ...FENCE]);

    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report?.outcome).toBe('fenced');
    const actions = report?.steps.map((s) => s.action).filter(Boolean);
    expect(actions?.slice(0, 2)).toEqual(['storage-fence', 'taint']);
    expect(actions).not.toContain('power-off');
    const proof = report?.storageProof;
    expect(proof?.confirmed).toBe(true);
    expect(proof?.found.map((e) => e.entry).sort()).toEqual([...ranges].sort());
    // Confirmed before the taint, in an observation made after the decision.
    const m = report?.milestones;
    expect(Date.parse(m?.blocklistConfirmedAt ?? '')).toBeGreaterThan(Date.parse(m?.decidedToFenceAt ?? ''));
    expect(Date.parse(m?.taintedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(m?.blocklistConfirmedAt ?? ''));
    confirmedAt = Date.parse(m?.blocklistConfirmedAt ?? '') / 1000;

    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    expect(await describeInstanceState(lab.ec2.client, lab.node('node-a').instanceId)).toBe('running');
    expect(await listed()).toEqual(
      expect.arrayContaining([...ranges.map((r) => r.replace('/32', ':0/32')), foreign()]),
    );
  });

  it('fails the zombie’s writes with the blocklist error; its watch goes; the new pod runs on node-b and holds the lock', async () => {
    const ceph = cephOf(lab);
    expect((await waitBlocklistedWrite(zombie)).errno).toBe(EBLOCKLISTED);

    const client = await waitForRbdRecovery(lab, app, 'node-b');

    expect(client.state).toBe('locked');
    await waitNoWatcherAt(ceph, app.volumeId, ranges);
    await expectOnlyWatchersAt(ceph, app.volumeId, [ceph.address('node-b')]);
    expect(await lastWriter()).toBe('node-b');
    // Not one write of the zombie's landed after the blocklist was confirmed.
    expect(writesLandedAfter(zombie, confirmedAt)).toEqual([]);
  });

  it('records exactly its own entries on node-a, not the foreign one', async () => {
    const node = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: 'node-a' });
    const record = JSON.parse(node.metadata?.annotations?.['kube-fencer.io/fence-record'] ?? '{}');

    expect([...record.blocklist].sort()).toEqual([...ranges].sort());
    expect(record.bootId).toBe(node.status?.nodeInfo?.bootID);
  });

  it('keeps the blocklist and the taint while node-a is down, and when it comes back without a reboot', async () => {
    const down = await runFencer(lab, ['unfence', 'node-a', '--wait', '0', '--output', 'json']);
    expect(down.code).toBe(3);
    expect(down.report?.reason).toBe('NodeNotReadyYet');

    await lab.reconnect('node-a');
    await waitNodeReady(lab, 'node-a');
    const back = await runFencer(lab, ['unfence', 'node-a', '--wait', '0', '--output', 'json']);

    expect(back.code).toBe(3);
    expect(back.report?.reason).toBe('NoPowerCycleSinceFence');
    expect(back.report?.steps.map((s) => s.action).filter(Boolean)).toEqual([]);
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    expect(await listed()).toEqual(expect.arrayContaining(ranges.map((r) => r.replace('/32', ':0/32'))));
    expect(writesLandedAfter(zombie, confirmedAt)).toEqual([]);
  });

  it('after a power cycle, lifts exactly its own entries (the foreign one stays), then removes its taint', async () => {
    await lab.crash('node-a');
    await lab.restore('node-a');
    await waitNodeReady(lab, 'node-a');
    // Besides the fencer's ranges and the foreign entry: librbd's own, from node-b breaking the lock.
    const before = await listed();

    const { code, report } = await runFencer(lab, ['unfence', 'node-a', '--output', 'json']);

    expect(code).toBe(0);
    expect(report?.outcome).toBe('unfenced');
    const actions = report?.steps.map((s) => s.action).filter(Boolean);
    expect(actions).toEqual(['storage-lift', 'remove-taint']);
    const ours = ranges.map((r) => r.replace('/32', ':0/32'));
    expect(await listed()).toEqual(before.filter((e) => !ours.includes(e)));
    expect(await listed()).toContain(foreign());
    expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
  });
});
