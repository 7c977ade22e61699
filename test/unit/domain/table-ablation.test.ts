/**
 * Every rule of the fence table is needed: with any one rule left out, at least one property of the
 * contract (see support/contract.ts) fails. A rule whose removal no test notices is either dead, or
 * guards something no test looks at; both are findings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideWithTable, FENCE_TABLE } from '../../../lib/domain/index.js';
import { contractProperties } from './support/contract.js';

const seed = Number(process.env.FC_SEED ?? 20_260_301);
/** As many runs per property as the safety test makes: at half, a missing rule's hole was found or
 * missed as the generated worlds changed (witness-observed's, once they grew a renewer's clock). */
const SCALE = 1;

/** Whether some property of the contract fails when `ruleId` is left out of the table. */
function someContractBreaksWithout(ruleId: string): string | null {
  const table = FENCE_TABLE.filter((rule) => rule.id !== ruleId);
  const decide: typeof decideWithTable extends (t: never, ...rest: infer A) => infer R
    ? (...a: A) => R
    : never = (observation, request, history) => decideWithTable(table, observation, request, history);
  for (const { name, property, numRuns } of contractProperties(decide, SCALE)) {
    if (fc.check(property, { numRuns, seed }).failed) return name;
  }
  return null;
}

describe('the fence table', () => {
  const removable = FENCE_TABLE.slice(0, -1).map((rule) => rule.id);

  it('ends with the rule that always decides', () => {
    expect(FENCE_TABLE.at(-1)?.id).toBe('no-rule-decided');
  });

  it.each(removable)('needs rule %s: without it, a property of the contract fails', (ruleId) => {
    expect(someContractBreaksWithout(ruleId), `nothing noticed the missing rule ${ruleId}`).not.toBeNull();
  });
});
