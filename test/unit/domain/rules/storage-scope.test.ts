/**
 * The storage fence reaches only the node (SAFETY.md rules 2, 3 and 10): a malformed storage-addresses
 * annotation, an entry covering another Node's address, or one covering a storage daemon's address is a
 * refusal naming the other party, decided before any action (the whole table, from a fresh run).
 */
import { describe, expect, it } from 'vitest';
import { Compliant, decide, NotApplicable } from '../../../../lib/domain/index.js';
import type { ObservedStorage } from '../../../../lib/domain/observation.js';
import { addressesUnique } from '../../../../lib/domain/rules/storage.js';
import {
  awayFromStorageDaemons,
  declaredAddressesValid,
  entriesFenceable,
} from '../../../../lib/domain/rules/storage-scope.js';
import type { ScopeConflict } from '../../../../lib/domain/storage-scope.js';
import { aRequest, checkFence, freshHistory, observe, type Spec } from '../support/fixtures.js';
import { aBlocklist, aStorage, IMAGE, storageCommittedHistory } from '../support/storage.js';

const DAEMON: ScopeConflict = {
  kind: 'storage-daemon',
  entry: '10.0.1.0/24',
  party: 'mon.a',
  address: '10.0.1.5',
};
const OTHER: ScopeConflict = {
  kind: 'other-node',
  entry: '10.0.1.0/24',
  party: 'worker-2',
  address: '10.0.1.77',
};
const MALFORMED = 'annotation kube-fencer.io/storage-addresses="10.0.0.0/8": 10.0.0.0/8 is wider than /24';

const withStorage = (overrides: Partial<ObservedStorage>): Spec => ({
  storage: { ...aStorage(aBlocklist(0, false)), ...overrides },
  volumeAttachments: [IMAGE],
});

describe('declared-addresses-valid (SAFETY.md rule 10)', () => {
  it('refuses a node whose storage-addresses annotation is malformed, with the parser’s words', () => {
    expect(checkFence(declaredAddressesValid, withStorage({ declaredError: MALFORMED }))).toMatchObject({
      phase: 'Refused',
      reason: 'StorageAddressesMalformed',
      evidence: [MALFORMED],
    });
    expect(checkFence(declaredAddressesValid, withStorage({ declared: ['10.0.1.0/24'] }))).toEqual(
      NotApplicable,
    );
  });
});

describe('away-from-storage-daemons (SAFETY.md rules 2 and 3)', () => {
  it('refuses an entry that covers a storage daemon’s address, naming the entry, the daemon and its address', () => {
    expect(checkFence(awayFromStorageDaemons, withStorage({ conflicts: [OTHER, DAEMON] }))).toMatchObject({
      phase: 'Refused',
      reason: 'AddressOfStorageDaemon',
      evidence: ['blocklist entry 10.0.1.0/24 covers 10.0.1.5, an address of mon.a'],
    });
    expect(checkFence(awayFromStorageDaemons, withStorage({ conflicts: [OTHER] }))).toEqual(Compliant);
  });
});

describe('entries-fenceable (SAFETY.md rules 6 and 2)', () => {
  const planned = (entry: string): Partial<ObservedStorage> => {
    const blocklist = aBlocklist(0, false);
    const expected = [{ kind: 'range' as const, entry, source: 'InternalIP' }];
    return { blocklist: { ok: true, value: { ...blocklist, expected, missing: expected } } };
  };

  it.each([
    ['127.0.0.1/32', 'is a loopback address'],
    ['::1/128', 'is a loopback address'],
    ['0.0.0.0/32', 'is the unspecified address'],
    ['10.0.0.0/8', 'is wider than /16'],
    ['fd00::/48', 'is wider than /64'],
  ])('refuses to blocklist %s, saying why', (entry, why) => {
    expect(checkFence(entriesFenceable, withStorage(planned(entry)))).toMatchObject({
      phase: 'Refused',
      reason: 'AddressNotFenceable',
      evidence: [`blocklist entry ${entry} ${why}`],
    });
  });

  it('lets a node address, a /16 and a /64 through', () => {
    for (const entry of ['10.0.1.23/32', '10.7.0.0/16', 'fd00::/64', '10.0.1.23:0/0'])
      expect(checkFence(entriesFenceable, withStorage(planned(entry))), entry).toEqual(Compliant);
  });

  it('judges the node’s own addresses when the storage cluster could not plan the fence', () => {
    const unread = { blocklist: { ok: false as const, error: { name: 'CephApiError', message: 'down' } } };
    expect(checkFence(entriesFenceable, withStorage({ ...unread, addresses: ['127.0.0.1'] }))).toMatchObject({
      reason: 'AddressNotFenceable',
      evidence: ['blocklist entry 127.0.0.1 is a loopback address'],
    });
    expect(checkFence(entriesFenceable, withStorage({ ...unread, addresses: ['10.0.1.23'] }))).toEqual(
      Compliant,
    );
  });
});

describe('addresses-unique with range overlap (SAFETY.md rules 2 and 3)', () => {
  it('names the entry, the other node and the address it covers', () => {
    const spec = withStorage({ conflicts: [OTHER, DAEMON], otherNodesSharingAddresses: ['worker-2'] });
    expect(checkFence(addressesUnique, spec)).toMatchObject({
      phase: 'Refused',
      reason: 'AddressSharedWithOtherNode',
      evidence: ['blocklist entry 10.0.1.0/24 covers 10.0.1.77, an address of node worker-2'],
    });
  });
});

describe('the fence table refuses before any action', () => {
  const run = (spec: Spec, dryRun = false) => decide(observe(spec), aRequest({ dryRun }), freshHistory());

  it.each([
    ['a malformed annotation', { declaredError: MALFORMED }, 'StorageAddressesMalformed'],
    [
      'another Node covered',
      { conflicts: [OTHER], otherNodesSharingAddresses: ['worker-2'] },
      'AddressSharedWithOtherNode',
    ],
    ['a storage daemon covered', { conflicts: [DAEMON] }, 'AddressOfStorageDaemon'],
    [
      'a loopback InternalIP',
      {
        addresses: ['127.0.0.1'],
        blocklist: { ok: false, error: { name: 'CephApiError', message: 'loopback' } },
      },
      'AddressNotFenceable',
    ],
  ] as const)('%s: Refused, no action, dry run or not', (_, overrides, reason) => {
    for (const dryRun of [false, true]) {
      const decision = run(withStorage(overrides), dryRun);
      expect(decision).toMatchObject({ phase: 'Refused', reason, action: null });
    }
  });

  it('a node whose entries reach no one else is not refused for its scope', () => {
    const decision = run(withStorage({}));
    expect([
      'StorageAddressesMalformed',
      'AddressSharedWithOtherNode',
      'AddressOfStorageDaemon',
    ]).not.toContain(decision.reason);
  });
});

describe('the scope rules judge only a node whose release needs a storage fence', () => {
  const scopeRules = [declaredAddressesValid, entriesFenceable, awayFromStorageDaemons] as const;
  const loopbackPlan = {
    ok: true as const,
    value: {
      ...aBlocklist(0, false),
      expected: [{ kind: 'range' as const, entry: '127.0.0.1/32', source: 'InternalIP 127.0.0.1' }],
    },
  };
  /** Every scope fault at once, on a storage answer. */
  const faulty: Partial<ObservedStorage> = {
    declaredError: MALFORMED,
    conflicts: [DAEMON],
    blocklist: loopbackPlan,
  };

  it('each refuses the faulty storage answer of a node holding an image', () => {
    for (const rule of scopeRules)
      expect(checkFence(rule, withStorage(faulty)), rule.id).toMatchObject({
        phase: 'Refused',
        action: null,
      });
  });

  it('none applies to a node holding only disks, whatever the storage cluster answered', () => {
    const disksOnly: Spec = { storage: { ...aStorage(aBlocklist(0, false)), ...faulty } };
    for (const rule of scopeRules) expect(checkFence(rule, disksOnly), rule.id).toEqual(NotApplicable);
  });

  it('none applies once committed to a storage fence whose fencer no longer answers', () => {
    const gone: Spec = { at: 20, storage: null, volumeAttachments: [IMAGE] };
    for (const rule of scopeRules)
      expect(checkFence(rule, gone, aRequest(), storageCommittedHistory()), rule.id).toEqual(NotApplicable);
  });
});
