/**
 * A run checkpoint proves nothing by itself (SAFETY.md rule 2): it is judged as a whole before a run
 * continues from it, and bound to the Node object it was written on.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkpointProblems } from '../../../lib/domain/checkpoint.js';
import type { RunHistory } from '../../../lib/domain/index.js';
import { committedHistory, freshHistory, provenHistory, t, taintedHistory } from './support/fixtures.js';
import { aBlocklist, storageCommittedHistory } from './support/storage.js';

const UID = 'uid-worker-1';

describe('checkpointProblems', () => {
  it.each([
    ['fresh (nothing decided yet)', freshHistory()],
    ['committed', committedHistory()],
    ['proven', provenHistory()],
    ['tainted', taintedHistory()],
  ])('finds nothing wrong with a %s history written on this Node', (_, history) => {
    expect(checkpointProblems(history, UID)).toEqual([]);
  });

  it('refuses a checkpoint written for another Node object of the same name', () => {
    expect(checkpointProblems(provenHistory(), 'uid-recreated')).toEqual([
      'written for Node uid uid-worker-1, the Node is now uid uid-recreated',
    ]);
  });

  it.each<[string, RunHistory, RegExp]>([
    [
      'an isolation plan that takes no proof',
      { ...committedHistory(), isolation: { machine: false, storage: false, watch: false } },
      /takes no proof at all/,
    ],
    [
      'a machine plan without a machine',
      {
        ...committedHistory(),
        target: { node: 'worker-1', nodeUid: UID, provider: 'aws', instanceId: '' },
      },
      /names no machine/,
    ],
    [
      'a release without the proof of off',
      { ...committedHistory(), taintedAt: t(50), storageProof: null },
      /taintedAt without any proof|release without the proof of off/,
    ],
    [
      'a storage proof without a storage plan',
      {
        ...committedHistory(),
        storageProof: {
          node: 'worker-1',
          observedAt: t(30),
          expected: [],
          found: [],
          missing: [],
          related: [],
          confirmed: true,
        },
      },
      /storage proof without a storage plan/,
    ],
    [
      'a proof older than the decision',
      { ...provenHistory(), decidedToFenceAt: t(45) },
      /not observed after/,
    ],
  ])('refuses %s', (_, history, problem) => {
    expect(checkpointProblems(history, UID).join('; ')).toMatch(problem);
  });

  it('refuses every release whose plan lacks its proof, whatever the plan', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (machine, storage, watch) => {
        const history: RunHistory = {
          ...committedHistory(),
          isolation: { machine, storage, watch },
          taintedAt: t(50),
        };
        // Tainted with neither proof recorded: never a history that could have happened.
        expect(checkpointProblems(history, UID)).not.toEqual([]);
      }),
    );
  });

  /** A run that fences both the machine and its storage clients, committed at `t(10)`. */
  const bothCommitted = (): RunHistory => ({
    ...committedHistory(),
    isolation: { machine: true, storage: true, watch: false },
    storageFenceRequestedAt: t(10),
  });
  const offProof = provenHistory().proofOfOff;
  const storageProof = aBlocklist(30, true);

  it.each<[string, RunHistory]>([
    ['storage-fenced, waiting for its storage proof', storageCommittedHistory()],
    [
      'storage-fenced and released on its storage proof',
      { ...storageCommittedHistory(), storageProof, taintedAt: t(50) },
    ],
    [
      'fenced both ways and released on both proofs',
      { ...bothCommitted(), proofOfOff: offProof, storageProof, taintedAt: t(50) },
    ],
    [
      'proven off and waiting out old watches',
      { ...provenHistory(), isolation: { machine: true, storage: false, watch: true } },
    ],
  ])('finds nothing wrong with a run %s', (_, history) => {
    expect(checkpointProblems(history, UID)).toEqual([]);
  });

  it.each<[string, RunHistory, string]>([
    [
      'a proof of off in a plan that powers no machine off',
      { ...storageCommittedHistory(), proofOfOff: offProof },
      'a proof of off without a machine in its plan',
    ],
    [
      'a release of a machine plan on the storage proof alone',
      { ...bothCommitted(), storageProof, taintedAt: t(50) },
      'a release without the proof of off its plan needs',
    ],
    [
      'a release of a storage plan on the proof of off alone',
      { ...bothCommitted(), proofOfOff: offProof, taintedAt: t(50) },
      'a release without the storage proof its plan needs',
    ],
  ])('refuses %s, and says only that', (_, history, problem) => {
    expect(checkpointProblems(history, UID)).toEqual([problem]);
  });

  it('refuses a machine plan that names no target at all', () => {
    const history: RunHistory = {
      ...freshHistory(),
      isolation: { machine: true, storage: false, watch: false },
    };
    expect(checkpointProblems(history, UID)).toEqual([
      'inconsistent run history: target and isolation go together',
      'its plan powers a machine off, but it names no machine',
    ]);
  });

  it('does not pass off a checkpoint it cannot even read as a history with problems: the error stands', () => {
    const unreadable = { ...committedHistory(), runId: undefined } as unknown as RunHistory;
    expect(() => checkpointProblems(unreadable, UID)).toThrow(TypeError);
  });
});
