/**
 * Keeping a standing fence alive (SAFETY.md rule 6), as properties over generated fences: the upkeep
 * lengthens only recorded entries, exactly those that would lapse within the margin, never while the
 * machine is proven off or an entry reaches another Node, and every recorded entry Ceph no longer lists
 * is named as lost. The oracle below is written from the rule, not from the code.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideUpkeep, type FenceUpkeepInput, UpkeepVerdict } from '../../../lib/domain/fence-upkeep.js';
import { PowerState } from '../../../lib/domain/instance.js';

const NOW = Date.parse('2026-12-04T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const OFF: readonly string[] = [PowerState.Stopped, PowerState.Terminated, PowerState.NotFound];

/** Distinct /32 entries in 10.1.0.0/16 for the fenced node; other nodes live in 10.1.0.0/16 too. */
const entryAt = (n: number) => `10.1.${n >> 8}.${n & 255}/32`;
const addressAt = (n: number) => `10.1.${n >> 8}.${n & 255}`;

const world = fc
  .record({
    indices: fc.uniqueArray(fc.nat(2000), { minLength: 1, maxLength: 6 }),
    /** Per entry: not listed (null) or seconds left (negative: lapsed but still listed). */
    left: fc.array(fc.option(fc.integer({ min: -600, max: 30 * 86_400 }), { nil: null }), {
      minLength: 6,
      maxLength: 6,
    }),
    machine: fc.constantFrom(
      null,
      'fault',
      ...Object.values(PowerState).filter((s) => s !== PowerState.Unknown),
      PowerState.Unknown,
    ),
    others: fc.array(fc.nat(2000), { maxLength: 4 }),
    daemons: fc.array(fc.nat(2000), { maxLength: 3 }),
    within: fc.integer({ min: 0, max: 7 * 86_400 }),
  })
  .map(
    ({ indices, left, machine, others, daemons, within }): FenceUpkeepInput => ({
      node: 'node-a',
      recorded: indices.map(entryAt),
      listed: indices.map((n, i) => {
        const l = left[i] ?? null;
        return { entry: entryAt(n), until: l === null ? null : iso(NOW + l * 1000) };
      }),
      machine:
        machine === null
          ? null
          : machine === 'fault'
            ? { ok: false, error: { name: 'ThrottlingException', message: 'Rate exceeded', throttled: true } }
            : { ok: true, value: { instanceId: 'i-0abc', state: machine, observedAt: iso(NOW) } },
      otherNodes: others.map((n, i) => ({ name: `node node-${i}`, addresses: [addressAt(n)] })),
      daemons: daemons.map((n, i) => ({ name: `mon.${i}`, addresses: [addressAt(n)] })),
      observedAt: iso(NOW),
      renewWithinSeconds: within,
    }),
  );

/** The rule, on its own terms. */
function oracle(input: FenceUpkeepInput) {
  const holders = [...input.otherNodes, ...input.daemons];
  const theirs = new Set(holders.flatMap((o) => o.addresses.map((a) => `${a}/32`)));
  const conflict = input.recorded.some((e) => theirs.has(e));
  const off = input.machine?.ok === true && OFF.includes(input.machine.value.state);
  const missing = input.listed.filter((l) => l.until === null).map((l) => l.entry);
  const lapsing = input.listed
    .filter((l) => l.until !== null && Date.parse(l.until) - NOW < input.renewWithinSeconds * 1000)
    .map((l) => l.entry);
  return { conflict, off, missing, lapsing };
}

describe('decideUpkeep', () => {
  it('lengthens nothing while a recorded entry reaches another Node or a storage daemon, whatever else holds', () => {
    fc.assert(
      fc.property(world, (input) => {
        const d = decideUpkeep(input);
        if (oracle(input).conflict) {
          expect(d.verdict).toBe(UpkeepVerdict.Conflict);
          expect(d.renew).toEqual([]);
          expect(d.why).toMatch(/covers (node node-|mon\.)\d/);
        } else expect(d.verdict).not.toBe(UpkeepVerdict.Conflict);
      }),
      { numRuns: 400 },
    );
  });

  it('lets the entries lapse once the machine is proven off, and never otherwise (a failed read is not off)', () => {
    fc.assert(
      fc.property(world, (input) => {
        const d = decideUpkeep(input);
        const { conflict, off } = oracle(input);
        if (conflict) return;
        expect(d.verdict === UpkeepVerdict.MayLapse).toBe(off);
        if (off) expect(d.renew).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('lengthens exactly the recorded entries still listed that lapse within the margin', () => {
    fc.assert(
      fc.property(world, (input) => {
        const d = decideUpkeep(input);
        const { conflict, off, lapsing } = oracle(input);
        expect(d.renew.every((e) => input.recorded.includes(e))).toBe(true);
        expect([...d.renew].sort()).toEqual(conflict || off ? [] : [...lapsing].sort());
      }),
      { numRuns: 400 },
    );
  });

  it('names every recorded entry Ceph no longer lists, and calls the fence lost unless it may lapse', () => {
    fc.assert(
      fc.property(world, (input) => {
        const d = decideUpkeep(input);
        const { conflict, off, missing, lapsing } = oracle(input);
        expect([...d.missing].sort()).toEqual([...missing].sort());
        if (conflict || off) return;
        if (missing.length > 0) expect(d.verdict).toBe(UpkeepVerdict.Lost);
        else expect(d.verdict).toBe(lapsing.length > 0 ? UpkeepVerdict.Renew : UpkeepVerdict.Healthy);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps a bare-metal fence (no provider) and one whose provider read failed', () => {
    const base = {
      node: 'node-a',
      recorded: ['10.1.0.5/32'],
      listed: [{ entry: '10.1.0.5/32', until: iso(NOW + 3600_000) }],
      otherNodes: [{ name: 'node node-b', addresses: ['10.1.0.6'] }],
      daemons: [{ name: 'mon.a', addresses: ['10.1.9.1'] }],
      observedAt: iso(NOW),
      renewWithinSeconds: 86_400,
    };
    for (const machine of [
      null,
      { ok: false as const, error: { name: 'Error', message: 'unreachable' } },
      { ok: true as const, value: { instanceId: 'i-1', state: PowerState.Running, observedAt: iso(NOW) } },
    ]) {
      const d = decideUpkeep({ ...base, machine });
      expect(d.verdict).toBe(UpkeepVerdict.Renew);
      expect(d.renew).toEqual(['10.1.0.5/32']);
    }
  });
});

describe('decideUpkeep at its margin and in its words', () => {
  const A = '10.1.0.5/32';
  const B = '10.1.0.6/32';
  const running = {
    ok: true as const,
    value: { instanceId: 'i-1', state: PowerState.Running, observedAt: iso(NOW) },
  };
  const fence = (listed: FenceUpkeepInput['listed']): FenceUpkeepInput => ({
    node: 'node-a',
    recorded: listed.map((l) => l.entry),
    listed,
    machine: running,
    otherNodes: [],
    daemons: [],
    observedAt: iso(NOW),
    renewWithinSeconds: 3600,
  });

  it('lengthens an entry lapsing just inside the margin, not one lapsing exactly at its end', () => {
    expect(decideUpkeep(fence([{ entry: A, until: iso(NOW + 3600_000 - 1) }]))).toMatchObject({
      verdict: UpkeepVerdict.Renew,
      renew: [A],
    });
    expect(decideUpkeep(fence([{ entry: A, until: iso(NOW + 3600_000) }]))).toMatchObject({
      verdict: UpkeepVerdict.Healthy,
      renew: [],
    });
  });

  it('names every entry it lengthens, and the margin', () => {
    const d = decideUpkeep(
      fence([
        { entry: A, until: iso(NOW + 60_000) },
        { entry: B, until: iso(NOW + 120_000) },
      ]),
    );
    expect(d.why).toBe(
      `${A}, ${B} lapse within 3600 s while node-a is fenced and its machine is not proven off`,
    );
  });

  it('names every entry Ceph no longer lists, and why that matters', () => {
    const d = decideUpkeep(
      fence([
        { entry: A, until: null },
        { entry: B, until: null },
      ]),
    );
    expect(d.why).toBe(
      `${A}, ${B} no longer listed while node-a is fenced and its machine is not proven off: its old clients may reach Ceph again`,
    );
  });

  it('names the first lapse of a healthy fence, whatever order the entries are listed in', () => {
    const later = iso(NOW + 2 * 86_400_000);
    const sooner = iso(NOW + 86_400_000);
    const d = decideUpkeep(
      fence([
        { entry: A, until: later },
        { entry: B, until: sooner },
      ]),
    );
    expect(d.verdict).toBe(UpkeepVerdict.Healthy);
    expect(d.why).toBe(`every recorded entry is listed, the first lapses at ${sooner}`);
  });
});
