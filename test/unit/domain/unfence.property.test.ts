/**
 * safety.md rule 6 as a property: over generated sequences of observations (Ready flapping, power states,
 * launch times, taints of all owners, API errors), decideUnfence() removes a taint only when the fencer
 * owns it, the node is Ready, and the instance runs from a boot later than the fence.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ConditionStatus,
  type Decision,
  decideUnfence,
  isTerminal,
  type Observation,
  type PowerState,
} from '../../../lib/domain/index.js';
import {
  ALL_POWER_STATES,
  chaosStateArb,
  runConfigArb,
  stepFaultsArb,
  weighted,
} from './support/arbitraries.js';
import { anUnfenceRequest, freshHistory, INSTANCE, t } from './support/fixtures.js';
import { observeWorld, type SimState } from './support/world.js';

const seed = Number(process.env.FC_SEED ?? 20_260_301);
const ms = (iso: string) => Date.parse(iso);
let removals = 0;

function checkUnfence(observation: Observation, decision: Decision, dryRun: boolean): void {
  const fail = (rule: string) => {
    throw new Error(
      `${rule}\n decision: ${JSON.stringify(decision)}\n observation: ${JSON.stringify(observation)}`,
    );
  };
  if (decision.done !== isTerminal(decision.phase)) fail('done must match the phase');
  const action = decision.action;
  if (action === null) return;
  if (action.kind !== 'remove-taint') fail(`an un-fence run did ${action.kind}`);
  if (dryRun) fail('a dry run removed a taint');
  const { node, instance } = observation;
  if (node === null || node.ready !== 'True') fail('removed the taint of a node that is not Ready');
  if (
    !node?.outOfServiceTaint.present ||
    !node.outOfServiceTaint.ownedByFencer ||
    node.fenceRecord === null
  ) {
    fail('removed a taint the fencer does not own');
  }
  if (!instance?.resolved || !instance.ownership.ok || !instance.ownership.value.owned)
    fail('ownership not verified');
  const power = instance?.resolved && instance.power.ok ? instance.power.value : null;
  const fencedAt = ms(node?.fenceRecord?.fencedAt ?? '');
  if (power === null || power.instanceId !== INSTANCE || power.state !== 'running')
    fail('no running instance');
  if (power?.launchTime === undefined || ms(power.launchTime) <= fencedAt)
    fail('removed the taint without a power cycle');
  if (action.kind === 'remove-taint' && action.expectedResourceVersion !== node?.resourceVersion)
    fail('stale write');
  removals += 1;
}

describe('decideUnfence() keeps rule 6', () => {
  afterAll(() => {
    expect(removals).toBeGreaterThan(20);
  });

  it('removes only its own taint, only after Ready and a power cycle, over generated observations', () => {
    const ready = weighted<ConditionStatus>([2, 'True'], [1, 'Unknown'], [1, 'False']);
    // Biased towards the one situation that allows a removal, so that the property is not vacuous.
    const ours = {
      present: true,
      owned: true,
      record: { runId: 'run-0', fencedAt: t(0), instanceId: INSTANCE, proof: 'stopped' },
    };
    const truth = fc
      .tuple(
        chaosStateArb,
        fc.record({
          taint: weighted<SimState['taint']>(
            [1, { present: false, owned: false, record: null }],
            [1, { present: true, owned: false, record: null }],
            [8, ours],
          ),
          power: weighted<PowerState>([3, 'running'], [1, fc.constantFrom(...ALL_POWER_STATES)]),
          launchTime: weighted([1, -86_400], [3, fc.integer({ min: -100, max: 1200 })]),
        }),
      )
      .map(([chaos, bias]) => ({ ...chaos, ...bias }));
    const step = fc.tuple(truth, stepFaultsArb, ready);
    fc.assert(
      fc.property(
        runConfigArb,
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 20 }),
        (config, dryRun, steps) => {
          const request = anUnfenceRequest({ dryRun });
          let history = freshHistory();
          let at = 0;
          for (const [truth, faults, nodeReady] of steps) {
            at += faults.dt;
            const observation = observeWorld({ ...truth, at }, { ...faults, ready: nodeReady }, config);
            const decision = decideUnfence(observation, request, history);
            expect(decideUnfence(observation, request, history)).toEqual(decision);
            checkUnfence(observation, decision, dryRun);
            history = decision.history;
            if (decision.done) break;
          }
        },
      ),
      { numRuns: 1000, seed },
    );
  });
});
