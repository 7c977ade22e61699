/**
 * SAFETY.md rule 6 as a property: over generated sequences of observations (Ready flapping, power states,
 * launch times, taints of every owner, stale records, API errors), decideUnfence() removes a taint only
 * when it is exactly the one the fencer recorded, the node is Ready, and the instance runs from a boot
 * later than the fence. The taints and annotations go through the app's own mapping, so ownership is
 * derived as in production; the checks below are the contract's, written without the domain's helpers.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ConditionStatus,
  type Decision,
  decideUnfence,
  type Observation,
  type PowerState,
  type TaintSnapshot,
} from '../../../lib/domain/index.js';
import {
  ALL_POWER_STATES,
  chaosStateArb,
  runConfigArb,
  stepFaultsArb,
  weighted,
} from './support/arbitraries.js';
import { RUNS_SCALE, scaledRuns } from './support/contract.js';
import { anUnfenceRequest, freshHistory, INSTANCE, OUR_TAINT, t } from './support/fixtures.js';
import { observeWorld, RECORD_ANNOTATION } from './support/world.js';

const seed = Number(process.env.FC_SEED ?? 20_260_301);
const ms = (iso: string) => Date.parse(iso);
const ENDS = new Set(['Fenced', 'Unfenced', 'Refused', 'Failed', 'DryRunReported']);
let removals = 0;
let clears = 0;

const same = (a: TaintSnapshot, b: TaintSnapshot) =>
  a.key === b.key && a.value === b.value && a.effect === b.effect && a.timeAdded === b.timeAdded;

function checkUnfence(observation: Observation, decision: Decision, dryRun: boolean): void {
  const fail = (rule: string): never => {
    throw new Error(
      `${rule}\n decision: ${JSON.stringify(decision)}\n observation: ${JSON.stringify(observation)}`,
    );
  };
  if (decision.done !== ENDS.has(decision.phase)) fail('done must match the phase');
  if (decision.phase === 'Refused' && decision.reason === null) fail('a refusal without a reason');
  const action = decision.action;
  if (action === null) return;
  if (dryRun) fail(`a dry run did ${action.kind}`);
  const { node, instance } = observation;
  if (node === null) {
    fail('acted on a missing node');
    return;
  }
  const record = node.fenceRecord;
  const ours = record ? node.outOfServiceTaints.find((x) => same(x, record.taint)) : undefined;
  if (action.kind === 'clear-fence-record') {
    if (record === null || ours !== undefined) fail('cleared a record whose taint is there');
    clears += 1;
    return;
  }
  if (action.kind !== 'remove-taint') {
    fail(`an un-fence run did ${action.kind}`);
    return;
  }
  if (ours === undefined || !same(action.taint, ours))
    fail('removed a taint that is not exactly the recorded one');
  if (node.ready !== 'True') fail('removed the taint of a node that is not Ready');
  if (!instance?.resolved || !instance.ownership.ok || !instance.ownership.value.owned)
    fail('ownership not verified');
  const power = instance?.resolved && instance.power.ok ? instance.power.value : null;
  if (power === null || power.instanceId !== INSTANCE || power.state !== 'running')
    fail('no running instance');
  if (power?.launchTime === undefined || ms(power.launchTime) <= ms(record?.fencedAt ?? ''))
    fail('removed the taint without a power cycle');
  if (action.expectedResourceVersion !== node.resourceVersion) fail('stale write');
  removals += 1;
}

describe('decideUnfence() keeps rule 6', () => {
  afterAll(() => {
    // Calibrated for full runs: the mutation run (FC_RUNS_SCALE < 1) runs a tenth of them, so it skips these
    // floors and judges each mutant by the property itself.
    if (RUNS_SCALE < 1) return;
    expect(removals).toBeGreaterThan(20);
    expect(clears).toBeGreaterThan(20);
  });

  it('removes only its own exact taint, only after Ready and a power cycle, over generated observations', () => {
    const ready = weighted<ConditionStatus>([2, 'True'], [1, 'Unknown'], [1, 'False']);
    // Biased towards the one situation that allows a removal, so that the property is not vacuous.
    const record = {
      runId: 'run-0',
      fencedAt: t(0),
      instanceId: INSTANCE,
      proof: 'stopped',
      taint: OUR_TAINT,
    };
    const oursMarks = {
      taints: [
        {
          key: OUR_TAINT.key,
          value: 'nodeshutdown',
          effect: 'NoExecute' as const,
          timeAdded: OUR_TAINT.timeAdded ?? '',
        },
      ],
      annotations: { [RECORD_ANNOTATION]: JSON.stringify(record) },
    };
    const truth = fc
      .tuple(
        chaosStateArb,
        fc.record({
          marks: weighted([3, null], [5, fc.constant(oursMarks)]),
          power: weighted<PowerState>([3, 'running'], [1, fc.constantFrom(...ALL_POWER_STATES)]),
          launchTime: weighted([1, -86_400], [3, fc.integer({ min: -100, max: 1200 })]),
        }),
      )
      .map(([chaos, { marks, ...bias }]) => ({ ...chaos, ...(marks ?? {}), ...bias }));
    const step = fc.tuple(truth, stepFaultsArb, ready);
    fc.assert(
      fc.property(
        runConfigArb,
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 20 }),
        (config, dryRun, steps) => {
          const request = anUnfenceRequest({ dryRun });
          const honest = { ...config, identity: 'ok' as const, neverSeenAlive: false };
          let history = freshHistory();
          let at = 0;
          for (const [truth, faults, nodeReady] of steps) {
            at += faults.dt;
            const state = { ...truth, at, resourceVersion: at };
            const observation = observeWorld(state, { ...faults, ready: nodeReady, latency: 0 }, honest);
            const decision = decideUnfence(observation, request, history);
            expect(decideUnfence(observation, request, history)).toEqual(decision);
            checkUnfence(observation, decision, dryRun);
            history = decision.history;
            if (decision.done) break;
          }
        },
      ),
      { numRuns: scaledRuns(1000), seed },
    );
  });
});
