/**
 * safety.md as fast-check properties over a decide function: runs in a world that follows the fencer
 * (with faults and attacks), in a world that ignores it, and calm worlds where each attack must end in
 * its own refusal and an honest dead node must end Fenced. The safety test checks them against the real
 * table; the ablation test checks that leaving any rule out breaks at least one.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Decision, FenceRequest, Observation, RunHistory } from '../../../../lib/domain/index.js';
import {
  chaosStateArb,
  type RunConfig,
  runConfigArb,
  type StepFaults,
  stepFaultsArb,
} from './arbitraries.js';
import { freshHistory } from './fixtures.js';
import { FenceOracle } from './oracle.js';
import { apply, evolve, initialState, observeWorld, type SimState } from './world.js';

export type DecideFn = (observation: Observation, request: FenceRequest, history: RunHistory) => Decision;

/**
 * `FC_RUNS_SCALE` multiplies the number of runs of every property (default 1, what CI runs). The mutation
 * run (`npm run mutation`) sets it below 1: each mutant re-runs the properties that reach it, and a tenth
 * of the runs still walks every rule of the table.
 */
export const RUNS_SCALE = runsScale(process.env.FC_RUNS_SCALE);

function runsScale(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0)
    throw new Error(`FC_RUNS_SCALE must be a positive number (1 runs every property in full), got '${raw}'`);
  return scale;
}

/** `n` runs scaled by `FC_RUNS_SCALE` (and an extra factor), never fewer than 20. */
export const scaledRuns = (n: number, scale = 1): number => Math.max(20, Math.round(n * scale * RUNS_SCALE));

/** Called with every decision the harness checked. */
export type OnDecision = (decision: Decision, observation: Observation) => void;

/** One step: decide twice (it must be pure), check the oracle, and the history's JSON round trip. */
function step(
  decide: DecideFn,
  oracle: FenceOracle,
  config: RunConfig,
  observation: Observation,
  history: RunHistory,
  onDecision?: OnDecision,
): Decision {
  const decision = decide(observation, config.request, history);
  expect(decide(observation, config.request, history)).toEqual(decision);
  expect(JSON.parse(JSON.stringify(decision.history))).toEqual(decision.history);
  oracle.check(observation, history, decision);
  onDecision?.(decision, observation);
  return decision;
}

/** Runs a whole fence in the world that follows its actions, returning every decision. */
export function runInWorld(
  decide: DecideFn,
  config: RunConfig,
  faults: readonly StepFaults[],
  onDecision?: OnDecision,
): Decision[] {
  const oracle = new FenceOracle(config.request, config.serverMinor, config.controlPlane);
  let state = initialState(config);
  let history = freshHistory();
  const decisions: Decision[] = [];
  for (const fault of faults) {
    state = evolve(state, fault, config);
    const decision = step(decide, oracle, config, observeWorld(state, fault, config), history, onDecision);
    decisions.push(decision);
    state = apply(state, decision.action, config, fault);
    history = decision.history;
    if (decision.done) break;
  }
  return decisions;
}

/** A dead node in a quiet cluster: the world moves, nothing goes wrong. */
export const CALM: StepFaults = {
  dt: 5,
  latency: 0,
  ready: 'Unknown',
  leaseAge: 600,
  heartbeatAge: 600,
  power: 'follow',
  ownership: 'owned',
  disksError: false,
  otherUnhealthy: 0,
  totalNodes: 10,
  inFlight: 0,
  optedOut: false,
  nodeMissing: false,
  providerId: 'ok',
  otherInstanceEvidence: false,
  nodeRecreated: false,
  taintRemovedByHand: false,
  foreignTaint: null,
  progress: true,
};

const calmRun = (decide: DecideFn, config: RunConfig, faults: readonly StepFaults[] = []): Decision[] =>
  runInWorld(decide, config, [...faults, ...Array.from({ length: 30 - faults.length }, () => CALM)]);

/** Configurations a real run could fence: not a dry run, allowed, stoppable, a strategy the server honours. */
export const fenceable = runConfigArb.filter(
  (c) =>
    !c.request.dryRun &&
    (!c.controlPlane || c.request.limits.allowControlPlane) &&
    (c.lifecycle !== 'spot-one-time' || c.request.allowTerminate) &&
    !(c.request.strategy === 'out-of-service' && c.serverMinor !== null && c.serverMinor < 26),
);

export const legacy = (c: RunConfig): boolean =>
  c.request.strategy === 'legacy' ||
  (c.request.strategy === 'auto' && c.serverMinor !== null && c.serverMinor < 26);

/** A named property of the contract and how many runs it needs. */
export interface ContractProperty {
  readonly name: string;
  readonly property: fc.IProperty<unknown[]>;
  readonly numRuns: number;
}

const ATTACKS: readonly Partial<RunConfig>[] = [
  { identity: 'duplicate-node', neverSeenAlive: false },
  { identity: 'ip-mismatch', neverSeenAlive: false },
  { identity: 'csi-mismatch', neverSeenAlive: false },
  { identity: 'no-signals', neverSeenAlive: false },
  { identity: 'ok', neverSeenAlive: true },
];

const attackReason = (c: RunConfig): string =>
  c.neverSeenAlive
    ? 'NeverSeenAlive'
    : ({
        'duplicate-node': 'InstanceClaimedByOtherNode',
        'ip-mismatch': 'IdentityMismatch',
        'csi-mismatch': 'IdentityMismatch',
        'no-signals': 'IdentityUnproven',
        ok: '',
      }[c.identity] ?? '');

/** Every property of the contract, over `decide`; `scale` (and `FC_RUNS_SCALE`) multiplies the number of runs. */
export function contractProperties(decide: DecideFn, scale = 1, onDecision?: OnDecision): ContractProperty[] {
  const runs = (n: number) => scaledRuns(n, scale);
  const honest = fenceable.filter(
    (c) =>
      c.identity === 'ok' &&
      !c.neverSeenAlive &&
      (!c.toleratingHolder || c.request.forceDeleteTolerating || legacy(c)),
  );
  const attacked = fenceable
    .filter((c) => c.initialPower === 'running' && c.lifecycle === 'on-demand')
    .chain((c) => fc.constantFrom(...ATTACKS).map((attack) => ({ ...c, ...attack })));
  const keeper = fenceable
    .filter((c) => !legacy(c) && c.identity === 'ok' && !c.neverSeenAlive)
    .map((c) => ({ ...c, toleratingHolder: true, request: { ...c.request, forceDeleteTolerating: false } }));
  const stale = fenceable
    .filter((c) => c.identity === 'ok' && !c.neverSeenAlive && !c.toleratingHolder)
    .map((c): RunConfig => ({ ...c, initialTaint: 'stale-record' }));
  const chaosStep = fc.tuple(chaosStateArb, stepFaultsArb);
  return [
    {
      name: 'in a world that follows its actions, with faults and attacks on every step',
      numRuns: runs(1000),
      property: fc.property(
        runConfigArb,
        fc.array(stepFaultsArb, { minLength: 1, maxLength: 40 }),
        (config, faults) => {
          runInWorld(decide, config, faults, onDecision);
        },
      ),
    },
    {
      name: 'in a world that ignores it: every observation generated afresh',
      numRuns: runs(1000),
      property: fc.property(
        runConfigArb,
        fc.array(chaosStep, { minLength: 1, maxLength: 30 }),
        (config, steps) => {
          const oracle = new FenceOracle(config.request, config.serverMinor, config.controlPlane);
          let history = freshHistory();
          let at = 0;
          for (const [truth, fault] of steps) {
            at += fault.dt + fault.latency;
            const state: SimState = { ...truth, at, resourceVersion: at };
            const decision = step(
              decide,
              oracle,
              config,
              observeWorld(state, fault, config),
              history,
              onDecision,
            );
            history = decision.history;
            if (decision.done) break;
          }
        },
      ),
    },
    {
      name: 'fences every dead node that is its machine, in a fault-free world',
      numRuns: runs(300),
      property: fc.property(honest, (config) => {
        const decisions = calmRun(decide, config);
        expect(decisions.at(-1)?.phase).toBe('Fenced');
        // With accelerate, pods the fencer's own taint evicts are force-deleted rather than left to PodGC.
        const tainter = config.initialTaint === 'none' || config.initialTaint === 'stale-record';
        if (config.request.accelerate && config.pods > 0 && tainter && !legacy(config))
          expect(decisions.some((d) => d.action?.kind === 'force-delete-pods')).toBe(true);
      }),
    },
    {
      name: 'refuses each attack on identity and liveness with its own reason, before any action',
      numRuns: runs(200),
      property: fc.property(attacked, (config) => {
        const decisions = calmRun(decide, config);
        expect(decisions.every((d) => d.action === null)).toBe(true);
        expect(decisions.at(-1)).toMatchObject({ phase: 'Refused', reason: attackReason(config) });
      }),
    },
    {
      name: 'stops at once, naming the pod, when a pod that tolerates the taint holds a volume',
      numRuns: runs(100),
      property: fc.property(keeper, (config) => {
        const decisions = calmRun(decide, config);
        const last = decisions.at(-1);
        expect(last).toMatchObject({ phase: 'Failed', reason: 'PodToleratesOutOfService' });
        expect(last?.message).toContain('db/keeper-0');
        expect(decisions.filter((d) => d.phase === 'Drain' && !d.done && d.action === null)).toEqual([]);
      }),
    },
    {
      name: 'clears a stale fence record and never takes the foreign taint added after it',
      numRuns: runs(100),
      property: fc.property(
        stale,
        fc.constantFrom('NoExecute' as const, 'NoSchedule' as const),
        (config, effect) => {
          // Someone else taints the node on the first step, before the fencer has proof.
          const decisions = calmRun(decide, config, [
            { ...CALM, foreignTaint: { value: 'maintenance', effect } },
          ]);
          expect(decisions.some((d) => d.action?.kind === 'clear-fence-record')).toBe(effect === 'NoExecute');
          const taints = decisions.flatMap((d) => (d.action?.kind === 'taint' ? [d.action.taint] : []));
          // With their NoExecute taint on, the fencer adds none of its own; with NoSchedule, its own.
          expect(taints.map((x) => x.value)).toEqual(effect === 'NoExecute' ? [] : ['nodeshutdown']);
          expect(decisions.at(-1)?.phase).toBe('Fenced');
        },
      ),
    },
    {
      name: 'refuses what it cannot do, before any action',
      numRuns: runs(100),
      property: fc.property(
        runConfigArb.filter(
          (c) => !c.request.dryRun && !c.controlPlane && c.identity === 'ok' && !c.neverSeenAlive,
        ),
        fc.constantFrom('old-server', 'one-time-spot'),
        (base, why) => {
          const config: RunConfig =
            why === 'old-server'
              ? { ...base, serverMinor: 25, request: { ...base.request, strategy: 'out-of-service' } }
              : {
                  ...base,
                  serverMinor: 30,
                  lifecycle: 'spot-one-time',
                  initialPower: 'running',
                  request: { ...base.request, allowTerminate: false },
                };
          const decisions = calmRun(decide, config);
          expect(decisions.every((d) => d.action === null)).toBe(true);
          const reason = why === 'old-server' ? 'OutOfServiceUnsupported' : 'InstanceNotStoppable';
          expect(decisions.at(-1)).toMatchObject({ phase: 'Refused', reason });
        },
      ),
    },
    {
      name: 'refuses bad input with its own reason, before any action',
      numRuns: runs(100),
      property: fc.property(
        fenceable,
        fc.constantFrom('missing', 'unparseable', 'unknown-provider', 'no-node'),
        (config, bad) => {
          const first: StepFaults =
            bad === 'no-node'
              ? { ...CALM, nodeMissing: true }
              : { ...CALM, providerId: bad as StepFaults['providerId'] };
          const decisions = calmRun(decide, config, [first]);
          const reason = {
            missing: 'ProviderIdMissing',
            unparseable: 'ProviderIdUnparseable',
            'unknown-provider': 'UnknownProvider',
            'no-node': 'NodeNotFound',
          }[bad];
          expect(decisions).toHaveLength(1);
          expect(decisions[0]).toMatchObject({ phase: 'Refused', reason, action: null });
        },
      ),
    },
    {
      name: 'releases nothing on a step that does not see the instance off, even with proof held',
      numRuns: runs(150),
      property: fc.property(
        honest.filter((c) => c.initialPower === 'running'),
        fc.constantFrom<StepFaults['power']>('shutting-down', 'stopping', 'pending', 'running', 'unknown'),
        fc.integer({ min: 0, max: 4 }),
        (config, seen, extra) => {
          // Calm until the proof is held, then one step that reports the machine not off.
          const calm = calmRun(decide, config);
          const proofAt = calm.findIndex((d) => d.history.proofOfOff !== null);
          if (proofAt < 0) return;
          const at = proofAt + 1 + extra;
          const faults = Array.from({ length: at + 1 }, (_, i) =>
            i === at ? { ...CALM, power: seen } : CALM,
          );
          const decisions = calmRun(decide, config, faults);
          const odd = decisions[at];
          if (odd === undefined) return;
          expect(['taint', 'force-delete-pods', 'delete-pods', 'delete-volume-attachments']).not.toContain(
            odd.action?.kind,
          );
        },
      ),
    },
  ];
}
