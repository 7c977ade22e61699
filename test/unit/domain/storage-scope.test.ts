/**
 * The storage fence's address vocabulary at its edges (SAFETY.md rules 2, 3 and 10): what reads as an IP
 * or a CIDR and what does not (the whole text, never a part of it), the two families never overlapping,
 * Ceph's IP-wide entry, entries no rule may blocklist, and the annotation's entry limit. The general
 * laws are the properties of storage-scope.property.test.ts; these are the inputs next to them.
 */
import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_MAX_ENTRIES,
  blocksOverlap,
  entryBlock,
  type IpBlock,
  parseIpBlock,
  parseStorageAddresses,
  unfenceableEntry,
} from '../../../lib/domain/storage-scope.js';

const parsed = (text: string): IpBlock => {
  const b = parseIpBlock(text);
  if (typeof b === 'string') throw new Error(b);
  return b;
};

describe('parseIpBlock: an IP or CIDR is read whole, or not at all', () => {
  it.each([
    ['10.0.1', 'three octets'],
    ['10.0.1.2.3', 'five octets'],
    ['10.0.0.0012', 'an octet of four digits'],
    ['10.0.0.1e2', 'an octet in exponent notation'],
    ['10.0.0.0x1', 'an octet in hexadecimal'],
    ['10. 0.0.1', 'a space inside'],
    ['1:2:3:4:5:6:7', 'seven IPv6 groups without `::`'],
    ['1:2:3:4:5:6:7:8:9', 'nine IPv6 groups'],
    ['1:2:3:4::5:6:7:8', 'eight IPv6 groups and a `::` that stands for none'],
    ['fd00::12345', 'an IPv6 group of five digits'],
    ['fd00::1g', 'an IPv6 group ending in a letter past f'],
    ['fd00::g1', 'an IPv6 group starting with a letter past f'],
    ['fd00::zz', 'an IPv6 group with no hex digit'],
    ['10.0.0.0/24/8', 'two prefixes'],
  ])('refuses %s (%s) as no IP address or CIDR', (text) => {
    expect(parseIpBlock(text)).toBe(`${JSON.stringify(text)} is not an IP address or CIDR`);
  });

  it.each([
    ['10.0.0.0/0024', 'four digits'],
    ['10.0.0.0/+24', 'a sign'],
    ['10.0.0.0/ 24', 'a space'],
    ['10.0.0.0/2e1', 'exponent notation'],
    ['10.0.0.0/x24', 'a letter'],
    ['10.0.0.0/', 'no digit'],
  ])('refuses the prefix of %s (%s) as a bad prefix length', (text) => {
    expect(parseIpBlock(text)).toBe(`${JSON.stringify(text)} has a bad prefix length`);
  });

  it('reads `::` as exactly the groups that are missing, one or more', () => {
    expect(parsed('fd00:1:2:3:4:5::6')).toEqual(parsed('fd00:1:2:3:4:5:0:6'));
    expect(parsed('fd00::6')).toEqual(parsed('fd00:0:0:0:0:0:0:6'));
    expect(parsed('fd00:1:2:3:4:5:6:7')).toEqual({
      family: 6,
      start: 0xfd00_0001_0002_0003_0004_0005_0006_0007n,
      prefix: 128,
    });
  });

  it('ignores blanks around the text, as the annotation and the kubelet may write them', () => {
    expect(parseIpBlock(' 10.0.0.5 ')).toEqual({ family: 4, start: 0x0a00_0005n, prefix: 32 });
    expect(parseIpBlock('\tfd00::5/128\n')).toEqual(parsed('fd00::5'));
  });
});

describe('blocksOverlap never crosses families', () => {
  it('an IPv4 range and an IPv6 address of the same low bits do not overlap, either way round', () => {
    for (const [v4, v6] of [
      ['0.0.0.0/0', '::1'],
      ['10.0.0.1', '::a00:1'],
      ['10.0.0.0/8', '::a00:0/104'],
    ] as const) {
      expect(blocksOverlap(parsed(v4), parsed(v6)), `${v4} ${v6}`).toBe(false);
      expect(blocksOverlap(parsed(v6), parsed(v4)), `${v6} ${v4}`).toBe(false);
    }
  });
});

describe('entryBlock: Ceph’s IP-wide entry is matched whole', () => {
  it('reads the entry with blanks around it as its single address', () => {
    expect(entryBlock(' 10.0.0.5:0/0 ')).toEqual(parsed('10.0.0.5'));
    expect(entryBlock(' [fd00::5]:0/0 ')).toEqual(parsed('fd00::5'));
  });

  it('does not read an address out of a longer text that merely contains the form', () => {
    for (const entry of ['x10.0.0.5:0/0', 'node-10.0.0.5:0/0', '10.0.0.5:0/0x', '10.0.0.5:0/01'])
      expect(typeof entryBlock(entry), entry).toBe('string');
  });
});

describe('unfenceableEntry', () => {
  it('leaves an entry that is no IP at all to the rules that read it', () => {
    for (const entry of ['storage-a', 'node-b.internal', '10.0.0.0/33', ''])
      expect(unfenceableEntry(entry), entry).toBeNull();
  });
});

describe('parseStorageAddresses: the entry limit', () => {
  const addresses = (n: number) => Array.from({ length: n }, (_, i) => `10.0.0.${i + 1}`);

  it(`accepts exactly ${ANNOTATION_MAX_ENTRIES} entries and refuses one more`, () => {
    expect(parseStorageAddresses(addresses(ANNOTATION_MAX_ENTRIES).join(','))).toEqual({
      ok: true,
      entries: addresses(ANNOTATION_MAX_ENTRIES),
    });
    const tooMany = parseStorageAddresses(addresses(ANNOTATION_MAX_ENTRIES + 1).join(','));
    expect(tooMany).toMatchObject({ ok: false });
    expect(tooMany.ok ? '' : tooMany.error).toContain(`more than ${ANNOTATION_MAX_ENTRIES} entries`);
  });
});
