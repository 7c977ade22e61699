import { describe, expect, it } from 'vitest';
import {
  canonicalIp,
  expandRange,
  parseRange,
  rangeAround,
  rangeContains,
  unfenceableReason,
} from '../../../../lib/adapters/ceph-rbd/addresses.js';
import { BlocklistDialect } from '../../../../lib/adapters/ceph-rbd/commands.js';
import { CephInputError, NoAddressToFenceError } from '../../../../lib/adapters/ceph-rbd/errors.js';
import { isRbdDriver, planEntries, recordedEntry } from '../../../../lib/adapters/ceph-rbd/plan.js';

const settings = { extraRanges: {}, maxAddressesPerRange: 256 };

describe('addresses', () => {
  it('writes addresses canonically', () => {
    expect(canonicalIp('10.0.0.12')).toBe('10.0.0.12');
    expect(canonicalIp('FD00:0:0::5')).toBe('fd00::5');
    expect(canonicalIp('ip-10-0-0-12')).toBeUndefined();
  });

  it('parses ranges and refuses host bits, naming the network meant', () => {
    expect(parseRange('10.0.0.12')).toEqual({ family: 4, network: '10.0.0.12', prefix: 32 });
    expect(parseRange('fd00::/64')).toEqual({ family: 6, network: 'fd00::', prefix: 64 });
    expect(() => parseRange('10.1.0.5/24')).toThrow('did you mean 10.1.0.0/24?');
    expect(() => parseRange('10.1.0.0/33')).toThrow(CephInputError);
    expect(() => parseRange('10.1.0.0/2/4')).toThrow(CephInputError);
  });

  it('knows which ranges hold which addresses', () => {
    expect(rangeContains(parseRange('10.1.0.0/24'), '10.1.0.77')).toBe(true);
    expect(rangeContains(parseRange('10.1.0.0/24'), '10.1.1.77')).toBe(false);
    expect(rangeContains(parseRange('fd00::/64'), 'fd00::9')).toBe(true);
    expect(rangeContains(parseRange('fd00::/64'), '10.1.0.1')).toBe(false);
    expect(rangeAround('10.9.8.5', 24)).toEqual({ family: 4, network: '10.9.8.0', prefix: 24 });
  });

  it('never fences loopback, "any", or a range wider than /16 (/64)', () => {
    expect(unfenceableReason(parseRange('127.0.0.1'))).toContain('loopback');
    expect(unfenceableReason(parseRange('::1'))).toContain('loopback');
    expect(unfenceableReason(parseRange('0.0.0.0/16'))).toContain('unspecified');
    expect(unfenceableReason(parseRange('10.0.0.0/8'))).toContain('wider than /16');
    expect(unfenceableReason(parseRange('fd00::/48'))).toContain('wider than /64');
    expect(unfenceableReason(parseRange('10.1.0.0/16'))).toBeUndefined();
  });

  it('expands a range into its addresses, within a bound', () => {
    expect(expandRange(parseRange('10.1.0.0/30'), 8)).toEqual([
      '10.1.0.0',
      '10.1.0.1',
      '10.1.0.2',
      '10.1.0.3',
    ]);
    expect(expandRange(parseRange('fd00::/127'), 8)).toEqual(['fd00::', 'fd00::1']);
    expect(() => expandRange(parseRange('10.1.0.0/24'), 8)).toThrow('256 addresses');
  });
});

describe('planEntries', () => {
  it('fences each InternalIP as a single-host range, then the node’s configured ranges, without repeats', () => {
    const entries = planEntries(
      { node: 'node-a', addresses: ['10.77.0.2', '10.77.0.2', 'fd00::2'] },
      { ...settings, extraRanges: { 'node-a': ['10.1.0.0/24'], 'node-b': ['10.2.0.0/24'] } },
      BlocklistDialect.Range,
    );
    expect(entries).toEqual([
      { kind: 'range', entry: '10.77.0.2/32', source: 'InternalIP 10.77.0.2' },
      { kind: 'range', entry: 'fd00::2/128', source: 'InternalIP fd00::2' },
      { kind: 'range', entry: '10.1.0.0/24', source: 'configured range 10.1.0.0/24' },
    ]);
  });

  it('fences IP-wide addresses on clusters without ranges, expanding configured ranges', () => {
    const entries = planEntries(
      { node: 'node-a', addresses: ['10.77.0.2'] },
      { ...settings, extraRanges: { 'node-a': ['10.1.0.0/31'] } },
      BlocklistDialect.Blocklist,
    );
    expect(entries.map((e) => [e.kind, e.entry])).toEqual([
      ['address', '10.77.0.2:0/0'],
      ['address', '10.1.0.0:0/0'],
      ['address', '10.1.0.1:0/0'],
    ]);
    expect(
      planEntries({ node: 'v6', addresses: ['fd00::2'] }, settings, BlocklistDialect.Blacklist)[0]?.entry,
    ).toBe('[fd00::2]:0/0');
  });

  it('fences the declared storage addresses after the InternalIPs and before the configured ranges', () => {
    const entries = planEntries(
      { node: 'node-a', addresses: ['10.77.0.2'], declared: ['10.5.0.0/24', 'fd00::5', '10.77.0.2'] },
      { ...settings, extraRanges: { 'node-a': ['10.1.0.0/24'] } },
      BlocklistDialect.Range,
    );
    expect(entries).toEqual([
      { kind: 'range', entry: '10.77.0.2/32', source: 'InternalIP 10.77.0.2' },
      { kind: 'range', entry: '10.5.0.0/24', source: 'declared storage address 10.5.0.0/24' },
      { kind: 'range', entry: 'fd00::5/128', source: 'declared storage address fd00::5' },
      { kind: 'range', entry: '10.1.0.0/24', source: 'configured range 10.1.0.0/24' },
    ]);
    // A node with only declared addresses has something to fence it by.
    expect(
      planEntries({ node: 'n', addresses: [], declared: ['10.5.0.9'] }, settings, BlocklistDialect.Blocklist),
    ).toEqual([{ kind: 'address', entry: '10.5.0.9:0/0', source: 'declared storage address 10.5.0.9' }]);
    expect(() =>
      planEntries({ node: 'n', addresses: [], declared: ['127.0.0.0/24'] }, settings, BlocklistDialect.Range),
    ).toThrow('refusing to fence declared 127.0.0.0/24');
  });

  it('refuses a node with nothing to fence it by', () => {
    expect(() => planEntries({ node: 'node-a', addresses: [] }, settings, BlocklistDialect.Range)).toThrow(
      NoAddressToFenceError,
    );
  });

  it('refuses an InternalIP that is not an address, or that must never be fenced', () => {
    expect(() =>
      planEntries({ node: 'n', addresses: ['node-a.lab'] }, settings, BlocklistDialect.Range),
    ).toThrow(CephInputError);
    expect(() =>
      planEntries({ node: 'n', addresses: ['127.0.0.1'] }, settings, BlocklistDialect.Range),
    ).toThrow('loopback');
  });
});

describe('recordedEntry', () => {
  it('reads back the two forms the fencer makes', () => {
    expect(recordedEntry('10.77.0.2/32')).toMatchObject({ kind: 'range', entry: '10.77.0.2/32' });
    expect(recordedEntry('fd00::2/128')).toMatchObject({ kind: 'range', entry: 'fd00::2/128' });
    expect(recordedEntry('10.77.0.2:0/0')).toMatchObject({ kind: 'address', entry: '10.77.0.2:0/0' });
    expect(recordedEntry('[fd00::2]:0/0')).toMatchObject({ kind: 'address', entry: '[fd00::2]:0/0' });
  });

  it('refuses exact client entries (lock breaking makes them; they are never the fencer’s to lift)', () => {
    expect(() => recordedEntry('10.77.0.2:0/2976520395')).toThrow(CephInputError);
    expect(() => recordedEntry('[fd00::2]:0/77')).toThrow(CephInputError);
    expect(() => recordedEntry('10.77.0.2')).toThrow(CephInputError);
    expect(() => recordedEntry('everything')).toThrow(CephInputError);
  });
});

describe('isRbdDriver', () => {
  it('knows ceph-csi’s RBD driver, plain and as Rook names it', () => {
    expect(isRbdDriver('rbd.csi.ceph.com')).toBe(true);
    expect(isRbdDriver('rook-ceph.rbd.csi.ceph.com')).toBe(true);
    expect(isRbdDriver('cephfs.csi.ceph.com')).toBe(false);
    expect(isRbdDriver('ebs.csi.aws.com')).toBe(false);
    expect(isRbdDriver(undefined)).toBe(false);
    expect(isRbdDriver('rbd.example.com', ['rbd.example.com'])).toBe(true);
  });
});
