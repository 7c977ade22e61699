import { describe, expect, it } from 'vitest';
import {
  addCommand,
  BlocklistDialect,
  dialectFromDescriptions,
  encodeMonCommand,
  jsonReal,
  listCommand,
  removeCommand,
} from '../../../../lib/adapters/ceph-rbd/commands.js';
import { CephInputError } from '../../../../lib/adapters/ceph-rbd/errors.js';
import type { FenceEntry } from '../../../../lib/domain/blocklist.js';
import { OCTOPUS_COMMANDS, PACIFIC_NO_RANGE_COMMANDS, PACIFIC_RANGE_COMMANDS } from './fixtures.js';

const range: FenceEntry = { kind: 'range', entry: '10.77.0.2/32', source: 'InternalIP 10.77.0.2' };
const address: FenceEntry = { kind: 'address', entry: '10.77.0.2:0/0', source: 'InternalIP 10.77.0.2' };

describe('jsonReal', () => {
  it('writes whole numbers as reals, which the mon needs for a CephFloat', () => {
    expect(jsonReal(86400)).toBe('86400.0');
    expect(jsonReal(0)).toBe('0.0');
  });

  it('keeps numbers that are reals already', () => {
    expect(jsonReal(600.5)).toBe('600.5');
    expect(jsonReal(1e21)).toBe('1e+21');
    expect(JSON.parse(jsonReal(1e21))).toBe(1e21);
  });

  it('refuses what JSON cannot carry', () => {
    expect(() => jsonReal(Number.POSITIVE_INFINITY)).toThrow(CephInputError);
    expect(() => jsonReal(Number.NaN)).toThrow(CephInputError);
  });
});

describe('encodeMonCommand', () => {
  it('sends expire as a JSON real, never as an integer (the mon rejects 86400)', () => {
    const body = encodeMonCommand(addCommand(range, BlocklistDialect.Range, 86400));
    expect(body).toBe(
      '{"prefix":"osd blocklist","range":"range","blocklistop":"add","addr":"10.77.0.2/32","expire":86400.0}',
    );
    expect(JSON.parse(body)).toMatchObject({ expire: 86400 });
  });

  it('leaves commands without floats as JSON.stringify writes them', () => {
    expect(encodeMonCommand(listCommand(BlocklistDialect.Range))).toBe(
      '{"prefix":"osd blocklist ls","format":"json"}',
    );
  });

  it('escapes string fields', () => {
    expect(JSON.parse(encodeMonCommand({ prefix: 'x', fields: { a: 'q"}' }, floats: { f: 1 } }))).toEqual({
      prefix: 'x',
      a: 'q"}',
      f: 1,
    });
  });
});

describe('blocklist commands per dialect', () => {
  it('fences a CIDR range with `range` on clusters that have ranges', () => {
    expect(addCommand(range, BlocklistDialect.Range, 3600)).toEqual({
      prefix: 'osd blocklist',
      fields: { range: 'range', blocklistop: 'add', addr: '10.77.0.2/32' },
      floats: { expire: 3600 },
    });
    expect(removeCommand(range, BlocklistDialect.Range)).toEqual({
      prefix: 'osd blocklist',
      fields: { range: 'range', blocklistop: 'rm', addr: '10.77.0.2/32' },
    });
  });

  it('fences an IP-wide address without `range`', () => {
    expect(addCommand(address, BlocklistDialect.Blocklist, 3600).fields).toEqual({
      blocklistop: 'add',
      addr: '10.77.0.2:0/0',
    });
  });

  it('speaks the old `blacklist` words to Octopus and older', () => {
    const command = addCommand(address, BlocklistDialect.Blacklist, 3600);
    expect(command.prefix).toBe('osd blacklist');
    expect(command.fields).toEqual({ blacklistop: 'add', addr: '10.77.0.2:0/0' });
    expect(listCommand(BlocklistDialect.Blacklist).prefix).toBe('osd blacklist ls');
  });

  it('never sends a range to a cluster without ranges (an old mon reads 10.77.0.2/32 as nonce 32)', () => {
    expect(() => addCommand(range, BlocklistDialect.Blocklist, 3600)).toThrow(CephInputError);
    expect(() => removeCommand(range, BlocklistDialect.Blacklist)).toThrow(CephInputError);
  });
});

describe('dialectFromDescriptions', () => {
  it('finds ranges in the 16.2.15 command table', () => {
    expect(dialectFromDescriptions(PACIFIC_RANGE_COMMANDS)).toBe(BlocklistDialect.Range);
  });

  it('falls back to single addresses on a Pacific without the range backport', () => {
    expect(dialectFromDescriptions(PACIFIC_NO_RANGE_COMMANDS)).toBe(BlocklistDialect.Blocklist);
  });

  it('uses blacklist on Octopus', () => {
    expect(dialectFromDescriptions(OCTOPUS_COMMANDS)).toBe(BlocklistDialect.Blacklist);
  });

  it('says so when there is no blocklist command at all', () => {
    expect(dialectFromDescriptions('{"cmd000":{"sig":["pg","stat"]}}')).toBeUndefined();
  });
});
