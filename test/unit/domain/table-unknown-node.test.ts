/**
 * Every rule of both tables on its own, for an observation without a node (SAFETY.md rule 10): each
 * either stays out of it or refuses; none throws or acts. The tables put node-exists first, but a rule
 * must not rely on its place to be safe (table-ablation.test.ts removes rules one by one).
 */
import { describe, expect, it } from 'vitest';
import { FENCE_TABLE, UNFENCE_TABLE } from '../../../lib/domain/index.js';
import { fenceContext } from '../../../lib/domain/rules/context.js';
import { unfenceContext } from '../../../lib/domain/rules/unfence-context.js';
import {
  anUnfenceRequest,
  aRequest,
  committedHistory,
  freshHistory,
  observe,
  provenHistory,
  taintedHistory,
} from './support/fixtures.js';

const noNode = () => ({ ...observe({ node: null }), instance: null });

describe('every rule, for a node that is not there', () => {
  for (const rule of FENCE_TABLE) {
    it(`fence rule ${rule.id} acts on nothing`, () => {
      for (const history of [freshHistory(), committedHistory(), provenHistory(), taintedHistory()]) {
        const observation = { ...noNode(), observedAt: '2026-03-01T10:01:00.000Z' };
        const verdict = rule.check(fenceContext(observation, aRequest(), history));
        if (verdict.kind === 'outcome') expect(verdict.action, rule.id).toBeNull();
      }
    });
  }

  for (const rule of UNFENCE_TABLE) {
    it(`un-fence rule ${rule.id} acts on nothing`, () => {
      const verdict = rule.check(unfenceContext(noNode(), anUnfenceRequest(), freshHistory()));
      if (verdict.kind === 'outcome') expect(verdict.action, rule.id).toBeNull();
    });
  }
});
