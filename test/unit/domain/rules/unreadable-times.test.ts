/**
 * A time that is not ISO 8601 is refused, never guessed (SAFETY.md rule 10), and the error names the
 * field, so the operator can tell which record or observation carries it.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../lib/domain/index.js';
import { leaseStale } from '../../../../lib/domain/rules/liveness.js';
import { confirmOff } from '../../../../lib/domain/rules/power.js';
import { instanceNotStartedAgain } from '../../../../lib/domain/rules/started-again.js';
import { confirmStorage } from '../../../../lib/domain/rules/storage.js';
import { powerCycled } from '../../../../lib/domain/rules/unfence.js';
import { unfenceContext } from '../../../../lib/domain/rules/unfence-context.js';
import {
  anUnfenceRequest,
  aRequest,
  checkFence,
  checkUnfence,
  committedHistory,
  freshHistory,
  OUR_RECORD,
  observe,
  t,
  taintedNode,
} from '../support/fixtures.js';
import { aBlocklist, aStorage, IMAGE, storageCommittedHistory } from '../support/storage.js';

const unreadable = (field: string) =>
  new ValidationError(`${field} is not an ISO 8601 time with a zone: "yesterday"`);

describe('fence rules name the unreadable time', () => {
  it('the launch time, the node read time, and the times the run asked for a power-off or a storage fence', () => {
    const launch = { at: 20, power: { launchTime: 'yesterday' } };
    expect(() => checkFence(instanceNotStartedAgain, launch, aRequest(), committedHistory())).toThrow(
      unreadable('launchTime'),
    );
    expect(() => checkFence(leaseStale, { node: { readAt: 'yesterday' } })).toThrow(
      unreadable('node.readAt'),
    );
    const powerOff = { ...committedHistory(), powerOffRequestedAt: 'yesterday' };
    expect(() => checkFence(confirmOff, { at: 20 }, aRequest(), powerOff)).toThrow(
      unreadable('powerOffRequestedAt'),
    );
    const storage = { at: 20, storage: aStorage(aBlocklist(20, false)), volumeAttachments: [IMAGE] };
    const storageFence = { ...storageCommittedHistory(), storageFenceRequestedAt: 'yesterday' };
    expect(() => checkFence(confirmStorage, storage, aRequest(), storageFence)).toThrow(
      unreadable('storageFenceRequestedAt'),
    );
  });
});

describe('un-fence rules name the unreadable time', () => {
  const back = {
    at: 600,
    node: taintedNode({ ready: 'True' }),
    power: { state: 'running', launchTime: t(500) },
  } as const;

  it("the fence record's time, the launch time and the observation's time", () => {
    const record = taintedNode({ ready: 'True', fenceRecord: { ...OUR_RECORD, fencedAt: 'yesterday' } });
    expect(() => checkUnfence(powerCycled, { ...back, node: record })).toThrow(
      unreadable('fenceRecord.fencedAt'),
    );
    const launch = { ...back, power: { state: 'running', launchTime: 'yesterday' } } as const;
    expect(() => checkUnfence(powerCycled, launch)).toThrow(unreadable('launchTime'));
    const observation = { ...observe(back), observedAt: 'yesterday' };
    expect(() => unfenceContext(observation, anUnfenceRequest(), freshHistory())).toThrow(
      unreadable('observedAt'),
    );
  });
});
