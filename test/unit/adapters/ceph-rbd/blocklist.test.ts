import { describe, expect, it } from 'vitest';
import {
  BlocklistFormatError,
  cephTimeToIso,
  evaluateBlocklist,
  type ListedEntry,
  parseBlocklist,
  splitJsonValues,
} from '../../../../lib/adapters/ceph-rbd/blocklist.js';
import type { FenceEntry } from '../../../../lib/domain/blocklist.js';
import { BLOCKLIST_OUTB, EMPTY_BLOCKLIST_OUTB } from './fixtures.js';

describe('splitJsonValues', () => {
  it('splits the two arrays Pacific prints back to back', () => {
    expect(splitJsonValues('[{"a":1}][{"b":2}]')).toEqual([[{ a: 1 }], [{ b: 2 }]]);
    expect(splitJsonValues('[][]')).toEqual([[], []]);
    expect(splitJsonValues(' [1]\n[2] ')).toEqual([[1], [2]]);
  });

  it('does not split on brackets inside strings (IPv6 addresses are bracketed)', () => {
    expect(splitJsonValues('[{"addr":"[fd00::6]:0/0"}][{"r":"]["}]')).toEqual([
      [{ addr: '[fd00::6]:0/0' }],
      [{ r: '][' }],
    ]);
  });

  it('refuses truncated or stray text', () => {
    expect(() => splitJsonValues('[{"a":1}][')).toThrow(BlocklistFormatError);
    expect(() => splitJsonValues('listed 2 entries')).toThrow(BlocklistFormatError);
    expect(() => splitJsonValues('[1]]')).toThrow(BlocklistFormatError);
  });
});

describe('cephTimeToIso', () => {
  it('reads Ceph’s microseconds and +0000 zone', () => {
    expect(cephTimeToIso('2026-12-01T20:57:19.685670+0000')).toBe('2026-12-01T20:57:19.685Z');
    expect(cephTimeToIso('2026-12-01T20:57:19+0130')).toBe('2026-12-01T19:27:19.000Z');
  });

  it('refuses what is not a time', () => {
    expect(() => cephTimeToIso('soon')).toThrow(BlocklistFormatError);
  });
});

describe('parseBlocklist', () => {
  it('reads addresses and ranges, IPv6 included, in the fencer’s spelling', () => {
    expect(parseBlocklist(BLOCKLIST_OUTB)).toEqual([
      {
        kind: 'address',
        entry: '10.9.9.8:0/0',
        raw: '10.9.9.8:0/0',
        ip: '10.9.9.8',
        until: '2026-11-30T21:07:57.496Z',
      },
      {
        kind: 'address',
        entry: '[fd00::6]:0/0',
        raw: '[fd00::6]:0/0',
        ip: 'fd00::6',
        until: '2026-11-30T21:07:55.444Z',
      },
      {
        kind: 'address',
        entry: '10.77.0.2:0/2976520395',
        raw: '10.77.0.2:0/2976520395',
        ip: '10.77.0.2',
        until: '2026-11-30T19:38:05.713Z',
      },
      {
        kind: 'range',
        entry: '10.9.8.5/24',
        raw: '10.9.8.5:0/24',
        ip: '10.9.8.5',
        until: '2026-11-30T21:09:04.364Z',
      },
      {
        kind: 'range',
        entry: 'fd00::5/128',
        raw: '[fd00::5]:0/128',
        ip: 'fd00::5',
        until: '2026-11-30T21:07:54.687Z',
      },
    ]);
  });

  it('reads an empty list, and the single array of clusters without ranges', () => {
    expect(parseBlocklist(EMPTY_BLOCKLIST_OUTB)).toEqual([]);
    expect(
      parseBlocklist('[{"addr":"10.0.0.1:0/0","until":"2026-01-01T00:00:00.000000+0000"}]'),
    ).toHaveLength(1);
  });

  it('refuses items it cannot read: an unreadable list is not evidence', () => {
    expect(() => parseBlocklist('[{"addr":"nowhere","until":"2026-01-01T00:00:00+0000"}][]')).toThrow(
      BlocklistFormatError,
    );
    expect(() => parseBlocklist('[{"who":"x","until":"2026-01-01T00:00:00+0000"}][]')).toThrow(
      BlocklistFormatError,
    );
    expect(() => parseBlocklist('[][][]')).toThrow(BlocklistFormatError);
  });
});

describe('evaluateBlocklist', () => {
  const now = new Date('2026-12-01T00:00:00.000Z');
  const expected: FenceEntry[] = [
    { kind: 'range', entry: '10.77.0.2/32', source: 'InternalIP 10.77.0.2' },
    { kind: 'range', entry: '10.1.0.0/24', source: 'configured range 10.1.0.0/24' },
  ];
  const listed = (
    entry: string,
    kind: ListedEntry['kind'],
    until: string,
    ip = entry.split(/[/:]/)[0] ?? '',
  ): ListedEntry => ({
    kind,
    entry,
    raw: entry,
    ip,
    until,
  });
  const evaluate = (items: ListedEntry[]) =>
    evaluateBlocklist({
      node: 'node-a',
      expected,
      listed: items,
      observedAt: now,
      minRemainingSeconds: 3600,
    });

  it('confirms when every entry is listed and lasts past the margin', () => {
    const evidence = evaluate([
      listed('10.77.0.2/32', 'range', '2026-12-08T00:00:00.000Z'),
      listed('10.1.0.0/24', 'range', '2026-12-08T00:00:00.000Z'),
    ]);
    expect(evidence.confirmed).toBe(true);
    expect(evidence.found.map((f) => f.entry)).toEqual(['10.77.0.2/32', '10.1.0.0/24']);
    expect(evidence.missing).toEqual([]);
    expect(evidence.observedAt).toBe('2026-12-01T00:00:00.000Z');
  });

  it('counts an entry that lapses within the margin as missing, with its time', () => {
    const evidence = evaluate([
      listed('10.77.0.2/32', 'range', '2026-12-01T00:30:00.000Z'),
      listed('10.1.0.0/24', 'range', '2026-12-08T00:00:00.000Z'),
    ]);
    expect(evidence.confirmed).toBe(false);
    expect(evidence.missing).toEqual([{ ...expected[0], until: '2026-12-01T00:30:00.000Z' }]);
  });

  it('does not take an exact entry on the address (lock breaking, or an old mon’s nonce-32 entry) for the range', () => {
    const evidence = evaluate([
      listed('10.77.0.2:0/32', 'address', '2026-12-08T00:00:00.000Z', '10.77.0.2'),
      listed('10.77.0.2:0/2976520395', 'address', '2026-12-01T01:00:00.000Z', '10.77.0.2'),
      listed('10.1.0.0/24', 'range', '2026-12-08T00:00:00.000Z'),
    ]);
    expect(evidence.confirmed).toBe(false);
    expect(evidence.missing.map((m) => m.entry)).toEqual(['10.77.0.2/32']);
    expect(evidence.related).toEqual([
      { entry: '10.77.0.2:0/32', until: '2026-12-08T00:00:00.000Z' },
      { entry: '10.77.0.2:0/2976520395', until: '2026-12-01T01:00:00.000Z' },
    ]);
  });

  it('lists another range over the node’s addresses as related, and ignores other nodes', () => {
    const evidence = evaluate([
      listed('10.77.0.0/24', 'range', '2026-12-08T00:00:00.000Z', '10.77.0.0'),
      listed('10.77.1.9:0/0', 'address', '2026-12-08T00:00:00.000Z', '10.77.1.9'),
    ]);
    expect(evidence.related).toEqual([{ entry: 'range 10.77.0.0/24', until: '2026-12-08T00:00:00.000Z' }]);
  });

  it('never confirms a node that needs no entry', () => {
    const evidence = evaluateBlocklist({
      node: 'x',
      expected: [],
      listed: [],
      observedAt: now,
      minRemainingSeconds: 60,
    });
    expect(evidence.confirmed).toBe(false);
  });
});
