/**
 * SAFETY.md as fast-check properties over a decide function: runs in a world that follows the fencer
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
    const observation = observeWorld(state, fault, config, history);
    const decision = step(decide, oracle, config, observation, history, onDecision);
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
  renewerClockBehind: 0,
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
  storageFault: null,
  blocklistLapse: false,
  witnessFault: false,
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

/**
 * Whether the run's first observation (in a calm world) shows the node holding a network image. It may
 * not, though the configuration has images: a NoExecute out-of-service taint already on the node lets
 * Kubernetes clear its VolumeAttachments before the fencer looks, and then there is nothing to fence
 * at the storage layer (ceph-csi's detach is a no-op, so only the VolumeAttachment says a node holds an
 * image).
 */
export const imagesAtStart = (c: RunConfig): boolean => {
  const { workload } = observeWorld(evolve(initialState(c), CALM, c), CALM, c);
  return workload.volumeAttachments.some((va) => va.image) || (workload.imagesInUse?.length ?? 0) > 0;
};

/**
 * Configurations whose storage can be fenced as configured: no shared address, and a bare-metal node only
 * with a storage fencer, its witness and images all on the fencer's storage cluster (nothing else names
 * what to isolate, and it has no machine: the blocklist is its one barrier, so it must stand on the
 * storage cluster's evidence, and reach every image).
 */
export const sound = (c: RunConfig): boolean =>
  !c.addressShared &&
  c.scopeFault === 'none' &&
  !(
    c.bareMetal &&
    c.volumes === 'images' &&
    !(c.storageFencer && c.witness && !c.foreignCluster && imagesAtStart(c))
  );

/** A bare-metal node holding only RBD images, with a storage fencer and its witness: the blocklist is all. */
const onBlocklistAlone = (c: RunConfig): RunConfig => ({
  ...c,
  volumes: 'images',
  storageFencer: true,
  witness: true,
  bareMetal: true,
});

/** The machine-only case, for properties about the machine. */
const onMachine = (c: RunConfig): RunConfig => ({
  ...c,
  volumes: 'disks',
  bareMetal: false,
  addressShared: false,
  scopeFault: 'none',
});

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
      sound(c) &&
      (!c.toleratingHolder || c.request.forceDeleteTolerating || legacy(c)),
  );
  const attacked = fenceable
    .filter((c) => c.initialPower === 'running' && c.lifecycle === 'on-demand')
    .map(onMachine)
    .chain((c) => fc.constantFrom(...ATTACKS).map((attack) => ({ ...c, ...attack })));
  const keeper = fenceable
    .filter((c) => !legacy(c) && c.identity === 'ok' && !c.neverSeenAlive && sound(c))
    .map((c) => ({ ...c, toleratingHolder: true, request: { ...c.request, forceDeleteTolerating: false } }));
  const stale = fenceable
    .filter((c) => c.identity === 'ok' && !c.neverSeenAlive && !c.toleratingHolder && sound(c))
    .map((c): RunConfig => ({ ...c, initialTaint: 'stale-record' }));
  // The storage properties need the images in the first observation (see imagesAtStart).
  // A terminated machine that Ceph shows no one holding is proven by the machine alone (its own property).
  const withImages = honest.filter(
    (c) =>
      !c.toleratingHolder &&
      c.attachments > 1 &&
      !c.foreignCluster &&
      !(c.initialPower === 'terminated' && c.witness),
  );
  const holding = (arb: fc.Arbitrary<RunConfig>) => arb.filter(imagesAtStart);
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
              observeWorld(state, fault, config, history),
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
        // Never waits on the pod. Without a storage fencer, an RBD image's old watch is still waited out
        // after the power-off (bounded: WATCH_EXPIRY_SECONDS), before the pod is named.
        expect(
          decisions.filter(
            (d) => d.phase === 'Drain' && !d.done && d.action === null && d.rule !== 'watches-gone',
          ),
        ).toEqual([]);
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
        runConfigArb
          .filter((c) => !c.request.dryRun && !c.controlPlane && c.identity === 'ok' && !c.neverSeenAlive)
          .map(onMachine),
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
      name: 'refuses an opted-out node, before any action, whatever else is true of it',
      numRuns: runs(50),
      property: fc.property(
        runConfigArb.filter((c) => !c.request.dryRun),
        (config) => {
          const optedOut = { ...CALM, optedOut: true };
          const decisions = runInWorld(
            decide,
            config,
            Array.from({ length: 10 }, () => optedOut),
          );
          expect(decisions.every((d) => d.action === null)).toBe(true);
          expect(decisions.at(-1)?.done).toBe(true);
        },
      ),
    },
    {
      name: 'refuses bad input with its own reason, before any action',
      numRuns: runs(100),
      property: fc.property(
        fenceable.map(onMachine),
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
      name: 'releases nothing on a step whose blocklist lost an entry, even with the storage proof held, and puts it back',
      numRuns: runs(100),
      property: fc.property(
        holding(withImages.map((c): RunConfig => ({ ...onBlocklistAlone(c), initialTaint: 'none' }))),
        fc.integer({ min: 0, max: 2 }),
        (config, extra) => {
          // Calm until the storage proof is held, then one step on which the entries are gone.
          const calm = calmRun(decide, config);
          const proofAt = calm.findIndex((d) => d.history.storageProof !== null);
          if (proofAt < 0) return;
          const at = proofAt + 1 + extra;
          const faults = Array.from({ length: at + 1 }, (_, i) =>
            i === at ? { ...CALM, blocklistLapse: true } : CALM,
          );
          const decisions = calmRun(decide, config, faults);
          const odd = decisions[at];
          if (odd === undefined || odd.done) return;
          expect(odd.action?.kind).toBe('storage-fence');
          expect(decisions.at(-1)?.phase).toBe('Fenced');
        },
      ),
    },
    {
      name: 'releases nothing on a step that does not see the instance off, even with proof held',
      numRuns: runs(150),
      property: fc.property(
        honest.filter((c) => c.initialPower === 'running').map(onMachine),
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
    {
      name: 'fences a node holding both a disk and an RBD image: blocklist first, then the machine, then the taint',
      numRuns: runs(100),
      property: fc.property(
        holding(
          withImages.map(
            (c): RunConfig => ({ ...c, volumes: 'mixed', storageFencer: true, bareMetal: false }),
          ),
        ),
        (config) => {
          const decisions = calmRun(decide, config);
          const kinds = decisions.flatMap((d) => (d.action ? [d.action.kind] : []));
          expect(decisions.at(-1)?.phase).toBe('Fenced');
          const first = (kind: (typeof kinds)[number]) => kinds.indexOf(kind);
          expect(first('storage-fence')).toBeGreaterThanOrEqual(0);
          // A hand-made taint already took the disk's attachment: then only the image is left to fence.
          if (config.initialPower === 'running' && config.initialTaint !== 'theirs')
            expect(first('storage-fence')).toBeLessThan(first('power-off'));
          if (first('taint') >= 0) expect(first('taint')).toBeGreaterThan(first('storage-fence'));
        },
      ),
    },
    {
      name: 'fences a bare-metal node holding only RBD images by blocklist alone, touching no machine',
      numRuns: runs(100),
      property: fc.property(holding(withImages.map(onBlocklistAlone)), (config) => {
        const decisions = calmRun(decide, config);
        const kinds = decisions.flatMap((d) => (d.action ? [d.action.kind] : []));
        expect(decisions.at(-1)?.phase).toBe('Fenced');
        expect(kinds).toContain('storage-fence');
        expect(kinds).not.toContain('power-off');
      }),
    },
    {
      name: "never proves an image of a storage cluster its fencer does not reach by that fencer's blocklist: powers the machine off and waits out the watch, or refuses bare metal",
      numRuns: runs(100),
      property: fc.property(
        holding(
          withImages.map(
            (c): RunConfig => ({
              ...c,
              volumes: c.volumes === 'disks' ? 'images' : c.volumes,
              storageFencer: true,
              witness: true,
              foreignCluster: true,
            }),
          ),
        ),
        (config) => {
          const decisions = calmRun(decide, config);
          const kinds = decisions.flatMap((d) => (d.action ? [d.action.kind] : []));
          if (config.bareMetal && config.volumes === 'images') {
            expect(kinds).toEqual([]);
            expect(decisions.at(-1)).toMatchObject({ phase: 'Refused', reason: 'ProviderIdMissing' });
            expect(decisions.at(-1)?.evidence.join('\n')).toContain('storage cluster cluster-b');
            return;
          }
          expect(decisions.at(-1)?.phase).toBe('Fenced');
          // The machine is the proof the foreign image needs; the old watch is waited out before the taint.
          const proven = decisions.findIndex((d) => d.history.proofOfOff !== null);
          const tainted = decisions.findIndex((d) => d.action?.kind === 'taint');
          if (config.initialTaint === 'none' || config.initialTaint === 'stale-record') {
            expect(proven).toBeGreaterThanOrEqual(0);
            expect(tainted).toBeGreaterThan(proven);
            expect(decisions.slice(proven, tainted).some((d) => d.rule === 'watches-gone')).toBe(true);
          }
        },
      ),
    },
    {
      name: 'never blocklists a machine its provider calls terminated while Ceph shows no one holding its images: the machine is the proof, the old watch waited out',
      numRuns: runs(100),
      property: fc.property(
        holding(
          honest
            .filter((c) => !c.toleratingHolder && c.attachments > 1 && !c.foreignCluster)
            .map(
              (c): RunConfig => ({
                ...c,
                volumes: c.volumes === 'disks' ? 'images' : c.volumes,
                storageFencer: true,
                witness: true,
                bareMetal: false,
                initialPower: 'terminated',
                // The witness reads the images the attachments name; one only reported in use it never saw.
                imagesReportedInUse: false,
              }),
            ),
        ),
        (config) => {
          const decisions = calmRun(decide, config);
          const kinds = decisions.flatMap((d) => (d.action ? [d.action.kind] : []));
          expect(decisions.at(-1)?.phase).toBe('Fenced');
          expect(kinds).not.toContain('storage-fence');
          expect(kinds).not.toContain('power-off');
          if (kinds.includes('taint'))
            expect(decisions.some((d) => d.rule === 'watches-gone' && d.action === null)).toBe(true);
        },
      ),
    },
    {
      name: 'refuses a bare-metal node holding only RBD images when no witness shows who holds them, before any action',
      numRuns: runs(100),
      property: fc.property(
        holding(
          withImages.map(
            (c): RunConfig => ({
              ...c,
              volumes: 'images',
              storageFencer: true,
              witness: false,
              bareMetal: true,
            }),
          ),
        ),
        (config) => {
          const decisions = calmRun(decide, config);
          expect(decisions.every((d) => d.action === null)).toBe(true);
          expect(decisions.at(-1)).toMatchObject({ phase: 'Refused', reason: 'WitnessRequired' });
        },
      ),
    },
    {
      name: 'fences at the storage layer a node tainted by hand whose kubelet last reported its RBD images in use',
      numRuns: runs(100),
      property: fc.property(
        withImages.map(
          (c): RunConfig => ({
            ...onBlocklistAlone(c),
            initialTaint: 'theirs',
            imagesReportedInUse: true,
          }),
        ),
        (config) => {
          const decisions = calmRun(decide, config);
          const kinds = decisions.flatMap((d) => (d.action ? [d.action.kind] : []));
          // The hand-made taint already took the attachments: only the kubelet's report names the images.
          expect(decisions.at(-1)?.phase).toBe('Fenced');
          expect(kinds).toContain('storage-fence');
          expect(kinds).not.toContain('power-off');
        },
      ),
    },
    {
      name: 'without a storage fencer, releases RBD images only once their old watches had time to expire',
      numRuns: runs(100),
      property: fc.property(
        withImages.map(
          (c): RunConfig => ({ ...c, volumes: 'images', storageFencer: false, bareMetal: false }),
        ),
        (config) => {
          const decisions = calmRun(decide, config);
          expect(decisions.at(-1)?.phase).toBe('Fenced');
          expect(decisions.flatMap((d) => (d.action ? [d.action.kind] : []))).not.toContain('storage-fence');
        },
      ),
    },
    {
      name: 'ends the run at once, naming it, when the adapter judged a provider error permanent',
      numRuns: runs(60),
      property: fc.property(
        fenceable.filter((c) => c.identity === 'ok' && !c.neverSeenAlive).map(onMachine),
        fc.constantFrom<StepFaults['ownership']>('credentials-rejected', 'call-rejected'),
        fc.integer({ min: 0, max: 6 }),
        (config, rejected, at) => {
          const faults = Array.from({ length: at + 1 }, (_, i) =>
            i === at ? { ...CALM, ownership: rejected } : CALM,
          );
          const decisions = calmRun(decide, config, faults);
          const last = decisions.at(-1);
          // Fenced before the fault came: nothing left to end.
          if (decisions.length <= at) return;
          expect(decisions).toHaveLength(at + 1);
          expect(last).toMatchObject({
            done: true,
            action: null,
            reason:
              rejected === 'credentials-rejected' ? 'ProviderCredentialsRejected' : 'ProviderCallRejected',
          });
        },
      ),
    },
    {
      name: 'takes evidence about another instance for nothing: refuses before any action',
      numRuns: runs(50),
      property: fc.property(
        fenceable.filter((c) => c.identity === 'ok' && !c.neverSeenAlive).map(onMachine),
        (config) => {
          const decisions = calmRun(decide, config, [{ ...CALM, otherInstanceEvidence: true }]);
          expect(decisions).toHaveLength(1);
          expect(decisions[0]).toMatchObject({ phase: 'Refused', reason: 'InstanceMismatch', action: null });
        },
      ),
    },
    {
      name: 'reads a storage error as no evidence: refuses refused credentials, waits out an unreachable mgr',
      numRuns: runs(100),
      property: fc.property(
        // No out-of-service taint yet: the images stay attached while the mgr is waited for.
        withImages.map(
          (c): RunConfig => ({
            ...c,
            volumes: 'images',
            storageFencer: true,
            witness: c.witness || c.bareMetal,
            initialTaint: 'none',
          }),
        ),
        fc.constantFrom('AuthRefused' as const, 'MgrUnreachable' as const),
        (config, storageFault) => {
          const decisions = calmRun(decide, config, [{ ...CALM, storageFault }]);
          expect(decisions[0]?.action).toBeNull();
          if (storageFault === 'AuthRefused') {
            expect(decisions).toHaveLength(1);
            expect(decisions[0]).toMatchObject({ phase: 'Refused', reason: 'StorageAuthRefused' });
          } else {
            expect(decisions[0]).toMatchObject({ done: false, reason: 'StorageUnreachable' });
            expect(decisions.at(-1)?.phase).toBe('Fenced');
          }
        },
      ),
    },
    {
      name: 'refuses to blocklist addresses another Node reports, before any action',
      numRuns: runs(100),
      property: fc.property(
        holding(
          withImages.map(
            (c): RunConfig => ({ ...c, volumes: 'images', storageFencer: true, addressShared: true }),
          ),
        ),
        (config) => {
          const decisions = calmRun(decide, config);
          expect(decisions.every((d) => d.action === null)).toBe(true);
          expect(decisions.at(-1)).toMatchObject({ phase: 'Refused', reason: 'AddressSharedWithOtherNode' });
        },
      ),
    },
    {
      name: 'refuses a malformed storage-addresses annotation, or an entry covering a storage daemon, before any action',
      numRuns: runs(100),
      property: fc.property(
        holding(
          withImages.chain((c) =>
            fc.constantFrom<RunConfig['scopeFault']>('malformed', 'daemon', 'unfenceable').map(
              (scopeFault): RunConfig => ({
                ...c,
                volumes: 'images',
                storageFencer: true,
                addressShared: false,
                scopeFault,
              }),
            ),
          ),
        ),
        (config) => {
          const decisions = calmRun(decide, config);
          expect(decisions.every((d) => d.action === null)).toBe(true);
          expect(decisions.at(-1)).toMatchObject({
            phase: 'Refused',
            reason: {
              malformed: 'StorageAddressesMalformed',
              daemon: 'AddressOfStorageDaemon',
              unfenceable: 'AddressNotFenceable',
              none: '',
            }[config.scopeFault],
          });
        },
      ),
    },
  ];
}
