/**
 * A run checkpoint proves nothing by itself (SAFETY.md rule 2): it is judged as a whole before a run
 * continues from it, and bound to the Node object it was written on.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkpointProblems } from '../../../lib/domain/checkpoint.js';
import type { RunHistory } from '../../../lib/domain/index.js';
import { committedHistory, provenHistory, t, taintedHistory } from './support/fixtures.js';

const UID = 'uid-worker-1';

describe('checkpointProblems', () => {
  it.each([
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
});
