/**
 * The storage fence's scope (SAFETY.md rules 2 and 3), as properties: ranges are compared by overlap (never
 * as strings), IPv4 and IPv6; an entry that covers another party's address is always named; an entry
 * that does not is never named; the storage-addresses annotation is accepted exactly within its bounds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_WIDEST_PREFIX,
  blocksOverlap,
  entryBlock,
  type IpBlock,
  parseIpBlock,
  parseStorageAddresses,
  scopeConflicts,
} from '../../../lib/domain/storage-scope.js';

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
const v6 = fc
  .array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
  .map((g) => g.map((x) => x.toString(16)).join(':'));
const toBig = (ip: string): bigint => {
  const block = parseIpBlock(ip);
  if (typeof block === 'string') throw new Error(block);
  return block.start;
};
/** The range of `prefix` bits around `ip`, host bits cleared, in CIDR text. */
const cidr = (ip: string, prefix: number): string => {
  const family = ip.includes(':') ? 6 : 4;
  const width = family === 4 ? 32 : 128;
  const start = (toBig(ip) >> BigInt(width - prefix)) << BigInt(width - prefix);
  const text =
    family === 4
      ? [24n, 16n, 8n, 0n].map((s) => Number((start >> s) & 255n)).join('.')
      : Array.from({ length: 8 }, (_, i) => ((start >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(
          ':',
        );
  return `${text}/${prefix}`;
};
const inRange = (block: IpBlock, ip: string): boolean => {
  const width = block.family === 4 ? 32 : 128;
  const shift = BigInt(width - block.prefix);
  return toBig(ip) >> shift === block.start >> shift && ip.includes(':') === (block.family === 6);
};
const parsed = (text: string): IpBlock => {
  const b = parseIpBlock(text);
  if (typeof b === 'string') throw new Error(b);
  return b;
};

describe('storage scope: ranges compared by overlap', () => {
  it('an address is covered by a range exactly when its leading bits match the range’s (IPv4 and IPv6)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(v4, v4, fc.integer({ min: 0, max: 32 })),
          fc.tuple(v6, v6, fc.integer({ min: 0, max: 128 })),
        ),
        ([a, b, prefix]) => {
          const range = parsed(cidr(a, prefix));
          expect(blocksOverlap(range, parsed(b))).toBe(inRange(range, b));
          expect(blocksOverlap(range, parsed(a))).toBe(true);
        },
      ),
    );
  });

  it('overlap is symmetric and never crosses families', () => {
    fc.assert(
      fc.property(
        v4,
        v6,
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 32 }),
        v4,
        (a, b, p, q, c) => {
          const x = parsed(cidr(a, p));
          const y = parsed(cidr(c, q));
          expect(blocksOverlap(x, y)).toBe(blocksOverlap(y, x));
          expect(blocksOverlap(x, parsed(b))).toBe(false);
        },
      ),
    );
  });

  it('spellings of one address are the same range: `::` compressed, leading zeros, Ceph’s IP-wide entry', () => {
    expect(blocksOverlap(parsed('fd00::5'), parsed('fd00:0:0:0:0:0:0:0005'))).toBe(true);
    expect(blocksOverlap(parsed('FD00::5/128'), parsed('fd00::5'))).toBe(true);
    expect(entryBlock('10.0.0.12:0/0')).toEqual(parsed('10.0.0.12'));
    expect(entryBlock('[fd00::5]:0/0')).toEqual(parsed('fd00::5'));
  });
});

describe('storage scope: conflicts', () => {
  it('names every other node or daemon an entry covers, and no one it does not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(v4, fc.integer({ min: 16, max: 32 })), { minLength: 1, maxLength: 3 }),
        fc.array(fc.array(v4, { maxLength: 3 }), { maxLength: 4 }),
        fc.array(v4, { maxLength: 3 }),
        (ranges, nodeAddresses, daemonAddresses) => {
          const entries = ranges.map(([ip, p]) => cidr(ip, p));
          const nodes = nodeAddresses.map((addresses, i) => ({ name: `node-${i}`, addresses }));
          const conflicts = scopeConflicts(entries, nodes, [{ name: 'mon.a', addresses: daemonAddresses }]);
          const expected = [
            ...entries.flatMap((entry) =>
              nodes.flatMap((n) =>
                n.addresses
                  .filter((a) => inRange(parsed(entry), a))
                  .map((address) => ({ kind: 'other-node', entry, party: n.name, address })),
              ),
            ),
            ...entries.flatMap((entry) =>
              daemonAddresses
                .filter((a) => inRange(parsed(entry), a))
                .map((address) => ({ kind: 'storage-daemon', entry, party: 'mon.a', address })),
            ),
          ];
          expect(conflicts).toEqual(expected);
        },
      ),
    );
  });

  it('compares as ranges, not strings: a /24 covers an address it does not spell', () => {
    expect(
      scopeConflicts(['10.1.2.0/24'], [{ name: 'node-b', addresses: ['node-b.internal', '10.1.2.9'] }], []),
    ).toEqual([{ kind: 'other-node', entry: '10.1.2.0/24', party: 'node-b', address: '10.1.2.9' }]);
    expect(scopeConflicts(['10.1.2.9/32'], [{ name: 'node-b', addresses: ['10.1.2.90'] }], [])).toEqual([]);
    expect(scopeConflicts(['fd00::/120'], [], [{ name: 'mon.a', addresses: ['fd00::ff'] }])).toMatchObject([
      { kind: 'storage-daemon', party: 'mon.a', address: 'fd00::ff' },
    ]);
  });
});

describe('storage scope: the storage-addresses annotation', () => {
  it('accepts a list of addresses and ranges no wider than /24 (IPv4) or /120 (IPv6), and refuses wider ones', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(v4, fc.integer({ min: 0, max: 32 })),
          fc.tuple(v6, fc.integer({ min: 0, max: 128 })),
        ),
        ([ip, prefix]) => {
          const family = ip.includes(':') ? 6 : 4;
          const result = parseStorageAddresses(`10.0.0.1, ${cidr(ip, prefix)}`);
          expect(result.ok).toBe(prefix >= ANNOTATION_WIDEST_PREFIX[family]);
          if (!result.ok)
            expect(result.error).toContain(`is wider than /${ANNOTATION_WIDEST_PREFIX[family]}`);
        },
      ),
    );
  });

  it('refuses anything but comma-separated IPs or CIDRs, saying which entry and why', () => {
    const error = (value: string) => {
      const r = parseStorageAddresses(value);
      return r.ok ? 'accepted' : r.error;
    };
    expect(error('10.0.0.1,,10.0.0.2')).toContain('an empty entry');
    expect(error('storage-a')).toContain('"storage-a" is not an IP address or CIDR');
    expect(error('10.0.0.300')).toContain('is not an IP address or CIDR');
    expect(error('10.0.0.5/24')).toContain('"10.0.0.5/24" has host bits set');
    expect(error('10.0.0.0/33')).toContain('bad prefix length');
    expect(error('fd00::1::2')).toContain('is not an IP address or CIDR');
    expect(error(Array(17).fill('10.0.0.1').join(','))).toContain('more than 16 entries');
    expect(parseStorageAddresses(' 10.0.0.1 , fd00::5/128 ')).toEqual({
      ok: true,
      entries: ['10.0.0.1', 'fd00::5/128'],
    });
  });
});
