/**
 * The run's history refuses a time it cannot read, never guesses it (SAFETY.md rule 10), and the error
 * names the field, so the operator can tell which record or observation carries it: the history's own
 * times when it is checked, the observation's times when a proof or a commitment is taken from it.
 */
import { describe, expect, it } from 'vitest';
import {
  assertHistory,
  proofFrom,
  record,
  storageProofFrom,
  ValidationError,
} from '../../../lib/domain/index.js';
import { committedHistory, freshHistory, observe, provenHistory, stopped } from './support/fixtures.js';
import { aBlocklist, aStorage, IMAGE, storageCommittedHistory } from './support/storage.js';

const unreadable = (field: string) =>
  new ValidationError(`${field} is not an ISO 8601 time with a zone: "yesterday"`);

const proven = provenHistory();

describe('assertHistory names the unreadable time', () => {
  it.each([
    ['startedAt', { ...freshHistory(), startedAt: 'yesterday' }],
    ['decidedToFenceAt', { ...provenHistory(), decidedToFenceAt: 'yesterday' }],
    [
      'proofOfOff.observedAt',
      { ...proven, proofOfOff: proven.proofOfOff && { ...proven.proofOfOff, observedAt: 'yesterday' } },
    ],
    [
      'decidedToFenceAt',
      { ...storageCommittedHistory(), decidedToFenceAt: 'yesterday', storageProof: aBlocklist(20, true) },
    ],
  ] as const)('%s', (field, history) => {
    expect(() => assertHistory(history)).toThrow(unreadable(field));
  });
});

describe('a proof taken from an observation names the unreadable time', () => {
  const offAt20 = observe({ at: 20, power: stopped(20) });
  const listedAt20 = observe({ at: 20, storage: aStorage(aBlocklist(20, true)), volumeAttachments: [IMAGE] });
  const undecided = { ...committedHistory(), decidedToFenceAt: 'yesterday' };

  it('proof of off: the power answer’s time, then the decision’s', () => {
    expect(() =>
      proofFrom(committedHistory(), observe({ at: 20, power: { ...stopped(20), observedAt: 'yesterday' } })),
    ).toThrow(unreadable('power.observedAt'));
    expect(() => proofFrom(undecided, offAt20)).toThrow(unreadable('decidedToFenceAt'));
  });

  it('storage proof: the blocklist’s time, then the decision’s', () => {
    const blocklist = { ...aBlocklist(20, true), observedAt: 'yesterday' };
    const unreadableList = observe({ at: 20, storage: aStorage(blocklist), volumeAttachments: [IMAGE] });
    expect(() => storageProofFrom(storageCommittedHistory(), unreadableList)).toThrow(
      unreadable('blocklist.observedAt'),
    );
    expect(() =>
      storageProofFrom({ ...storageCommittedHistory(), decidedToFenceAt: 'yesterday' }, listedAt20),
    ).toThrow(unreadable('decidedToFenceAt'));
  });
});

describe('the commitment names the unreadable time of the observation it is made on', () => {
  const confirmOff = { phase: 'ConfirmOff', action: null, reason: null } as const;

  it('the observation’s own time, and the power answer’s', () => {
    expect(() =>
      record(freshHistory(), confirmOff, { ...observe({ at: 10 }), observedAt: 'yesterday' }),
    ).toThrow(unreadable('observedAt'));
    expect(() =>
      record(freshHistory(), confirmOff, observe({ at: 10, power: { observedAt: 'yesterday' } })),
    ).toThrow(unreadable('power.observedAt'));
  });
});
