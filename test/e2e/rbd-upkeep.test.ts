/**
 * A standing storage fence kept alive by the sweep (SAFETY.md rule 6), against a real Ceph: node-a,
 * bare metal (no machine to power off, so the blocklist is its only barrier), is fenced by `fencer
 * fence`; its zombie client is shut out. Time passing is staged in Ceph itself: node-a's entry is put
 * back with ten minutes left, as if a week had gone by while node-a stayed down (covered by hand
 * meanwhile, so the staging opens no gap). The real `fencer sweep` then lengthens exactly that entry to
 * the full expiry, and every OSD map Ceph published in between still shut node-a out (read back epoch
 * by epoch with `osd dump`). A second sweep with nothing due changes nothing. Once the entry is gone,
 * the sweep says so and fails, and adds nothing back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Holder } from '../../lab/ceph/holder.js';
import type { Lab } from '../../lab/lab.js';
import { cephOf, writesLandedAfter } from '../../lab/scenarios/rbd-incident.js';
import type { SweepReport } from '../../lib/app/sweep/report.js';
import { labWithCutRbdNode } from '../support/cut-node.js';
import { runFencer } from '../support/fencer-cli.js';
import { taintsOf } from '../support/lab-waits.js';

const DAY_MS = 86_400_000;
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';

interface OsdDump {
  readonly epoch: number;
  readonly blocklist?: Readonly<Record<string, string>>;
  readonly range_blocklist?: Readonly<Record<string, string>>;
}

/** Ceph's `until` (`2026-12-11T08:00:00.123456+0000`) as milliseconds. */
const untilMs = (until: string): number => Date.parse(until.replace(/(\.\d{3})\d*\+0000$/, '$1Z'));

describe('a standing storage fence, kept alive by the sweep', () => {
  let lab: Lab;
  let zombie: Holder;
  let ip: string;
  let fencedAt: number;

  const ceph = () => cephOf(lab);
  /**
   * The fencer's entries on node-a's address: its range, and the IP-wide cover a renewal uses. Not the
   * exact `<ip>:0/<nonce>` entry that librbd's lock breaking adds when node-b takes the image.
   */
  const entriesAt = async () =>
    (await ceph().blocklist())
      .filter((e) => e.kind === 'range' || e.value === `${ip}:0/0`)
      .filter((e) => e.value.startsWith(`${ip}:`))
      .map((e) => [e.kind, e.value, e.until]);
  const osdDump = (epoch?: number) =>
    ceph().admin.monJson<OsdDump>({ prefix: 'osd dump', ...(epoch === undefined ? {} : { epoch }) });
  const sweepNow = async (): Promise<{ code: number | null; report: SweepReport; stderr: string }> => {
    const { code, stdout, stderr } = await runFencer(lab, ['sweep', '--output', 'json']);
    return { code, report: JSON.parse(stdout) as SweepReport, stderr };
  };

  beforeAll(async () => {
    ({ lab, zombie } = await labWithCutRbdNode({ bareMetal: ['node-a'] }));
    ip = ceph().address('node-a');
    const { code, report } = await runFencer(lab, [
      'fence',
      'node-a',
      '--lease-grace',
      '40',
      '--output',
      'json',
    ]);
    expect(report?.outcome, report?.message).toBe('fenced');
    expect(code).toBe(0);
    fencedAt = Date.now() / 1000;
  }, 300_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('lengthens the entry a week has nearly used up, node-a shut out in every OSD map in between', {
    timeout: 180_000,
  }, async () => {
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    // A week passes: the same range, ten minutes left. An IP-wide entry holds node-a out meanwhile.
    const cover = `${ip}:0/0`;
    await ceph().admin.mon({ prefix: 'osd blocklist', blocklistop: 'add', addr: cover });
    await ceph().admin.mon({ prefix: 'osd blocklist', range: 'range', blocklistop: 'rm', addr: `${ip}/32` });
    await ceph().admin.mon({
      prefix: 'osd blocklist',
      range: 'range',
      blocklistop: 'add',
      addr: `${ip}/32`,
      expire: 600.5, // a JSON real: the mon refuses 600
    });
    await ceph().admin.mon({ prefix: 'osd blocklist', blocklistop: 'rm', addr: cover });
    const staged = await entriesAt();
    expect(staged.map(([kind, value]) => [kind, value])).toEqual([['range', `${ip}:0/32`]]);
    expect(untilMs(String(staged[0]?.[2]))).toBeLessThan(Date.now() + 11 * 60_000);
    const before = (await osdDump()).epoch;

    const { code, report, stderr } = await sweepNow();

    // From Ceph first: the range is back to a full week, and no cover is left.
    const after = await entriesAt();
    expect(after.map(([kind, value]) => [kind, value])).toEqual([['range', `${ip}:0/32`]]);
    expect(untilMs(String(after[0]?.[2]))).toBeGreaterThan(Date.now() + 6 * DAY_MS);
    // Every map Ceph published meanwhile listed the range or the fencer's IP-wide cover.
    const last = (await osdDump()).epoch;
    expect(last).toBeGreaterThan(before);
    for (let epoch = before; epoch <= last; epoch++) {
      const map = await osdDump(epoch);
      const shut =
        Object.keys(map.range_blocklist ?? {}).includes(`cidr:${ip}:0/32`) ||
        Object.keys(map.blocklist ?? {}).includes(cover);
      expect(
        shut,
        `OSD map epoch ${epoch}: ${JSON.stringify(map.blocklist)} ${JSON.stringify(map.range_blocklist)}`,
      ).toBe(true);
    }
    expect(writesLandedAfter(zombie, fencedAt)).toEqual([]);
    // The sweep's own account.
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report.fences).toMatchObject({ fencedNodes: 1, renewed: 1, lost: 0, failed: 0 });
    expect(report.fences.nodes[0]).toMatchObject({ node: 'node-a', verdict: 'renew', action: 'renewed' });
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
  });

  it('changes nothing in Ceph when nothing is due', { timeout: 120_000 }, async () => {
    const before = (await osdDump()).epoch;
    const { code, report } = await sweepNow();
    expect((await osdDump()).epoch).toBe(before);
    expect(report.fences.nodes[0]).toMatchObject({ node: 'node-a', verdict: 'healthy', action: 'none' });
    expect(code).toBe(0);
  });

  it('says so, and fails, once the entry is gone, adding nothing back', { timeout: 120_000 }, async () => {
    await ceph().admin.mon({ prefix: 'osd blocklist', range: 'range', blocklistop: 'rm', addr: `${ip}/32` });
    const before = (await osdDump()).epoch;
    const { code, report } = await sweepNow();
    expect(await entriesAt()).toEqual([]);
    expect((await osdDump()).epoch).toBe(before);
    expect(report.fences).toMatchObject({ lost: 1 });
    const [fence] = report.fences.nodes;
    expect(fence).toMatchObject({ node: 'node-a', verdict: 'lost', action: 'none' });
    // The range removed is named as not listed; node-a's other recorded entries are still listed.
    expect(fence?.entries.filter((e) => e.until === null)).toEqual([{ entry: `${ip}/32`, until: null }]);
    expect(fence?.entries.length).toBeGreaterThan(1);
    expect(code).toBe(4);
  });
});
