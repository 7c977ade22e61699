/**
 * Generators for the property tests: per-run configurations, per-step faults, and whole observations
 * generated afresh for the adversarial "world that ignores the fencer". Faults are weighted so that a
 * run usually survives long enough to reach the taint and the drain.
 */
import fc from 'fast-check';
import {
  type ConditionStatus,
  DEFAULT_LIMITS,
  type DiskAttachment,
  type FenceRequest,
  type PowerState,
  type Strategy,
} from '../../../../lib/domain/index.js';
import { aPod, aRequest, aVolumeAttachment, INSTANCE, t } from './fixtures.js';
import { NO_TAINT, type SimState } from './world.js';

/** Pick among arbitraries (or constants) with weights. */
export const weighted = <T>(
  ...choices: readonly (readonly [number, fc.Arbitrary<T> | T])[]
): fc.Arbitrary<T> =>
  fc.oneof(
    ...choices.map(([weight, choice]) => ({
      weight,
      arbitrary: choice instanceof fc.Arbitrary ? choice : fc.constant(choice),
    })),
  );

/** What stays the same for a whole run. */
export interface RunConfig {
  readonly request: FenceRequest;
  readonly serverMinor: number | null;
  readonly controlPlane: boolean;
  readonly lifecycle: 'on-demand' | 'spot' | 'spot-one-time';
  readonly initialPower: PowerState;
  readonly initialTaint: 'none' | 'ours-earlier-run' | 'theirs';
  readonly pods: number;
  readonly attachments: number;
}

export const ALL_POWER_STATES: readonly PowerState[] = [
  'pending',
  'running',
  'stopping',
  'stopped',
  'shutting-down',
  'terminated',
  'not-found',
  'unknown',
];

export const runConfigArb: fc.Arbitrary<RunConfig> = fc.record({
  request: fc
    .record({
      dryRun: weighted([1, true], [3, false]),
      strategy: fc.constantFrom<Strategy>('auto', 'out-of-service', 'legacy'),
      accelerate: fc.boolean(),
      allowTerminate: fc.boolean(),
      skipOsShutdown: fc.boolean(),
      leaseGraceSeconds: fc.integer({ min: 20, max: 60 }),
      maxUnhealthyNodes: fc.integer({ min: 1, max: 4 }),
      maxInFlight: fc.integer({ min: 1, max: 2 }),
      allowControlPlane: fc.boolean(),
    })
    .map(({ leaseGraceSeconds, maxUnhealthyNodes, maxInFlight, allowControlPlane, ...rest }) =>
      aRequest({
        ...rest,
        limits: { ...DEFAULT_LIMITS, leaseGraceSeconds, maxUnhealthyNodes, maxInFlight, allowControlPlane },
      }),
    ),
  serverMinor: weighted<number | null>([8, fc.integer({ min: 22, max: 32 })], [1, null]),
  controlPlane: weighted([1, true], [9, false]),
  lifecycle: weighted<RunConfig['lifecycle']>([6, 'on-demand'], [2, 'spot'], [1, 'spot-one-time']),
  initialPower: weighted<PowerState>(
    [6, 'running'],
    [1, 'stopping'],
    [2, 'stopped'],
    [1, 'pending'],
    [1, 'terminated'],
  ),
  initialTaint: weighted<RunConfig['initialTaint']>([6, 'none'], [1, 'ours-earlier-run'], [1, 'theirs']),
  pods: fc.integer({ min: 0, max: 3 }),
  attachments: fc.integer({ min: 0, max: 3 }),
});

/** What goes wrong (or right) on one step. */
export interface StepFaults {
  readonly dt: number;
  readonly ready: ConditionStatus;
  /** Seconds since the Lease/heartbeat was renewed; negative is a clock-skewed future; null is none. */
  readonly leaseAge: number | null;
  readonly heartbeatAge: number | null;
  /** `follow` reports the simulated truth; a PowerState reports that instead (a stale or odd answer). */
  readonly power: 'follow' | 'api-error' | 'started' | PowerState;
  readonly ownership: 'owned' | 'wrong-cluster' | 'wrong-account' | 'wrong-region' | 'error';
  readonly disksError: boolean;
  readonly otherUnhealthy: number;
  readonly totalNodes: number;
  readonly inFlight: number;
  readonly optedOut: boolean;
  readonly nodeMissing: boolean;
  readonly providerId: 'ok' | 'missing' | 'unparseable' | 'unknown-provider';
  readonly otherInstanceEvidence: boolean;
  readonly nodeRecreated: boolean;
  readonly taintRemoved: boolean;
  /** Whether the world moves on this step (the instance finishes stopping, PodGC runs...). */
  readonly progress: boolean;
}

const rare = (oneIn: number) => weighted([1, true], [oneIn - 1, false]);

const ageArb = weighted<number | null>(
  [60, fc.integer({ min: 61, max: 3000 })],
  [2, fc.integer({ min: 20, max: 60 })],
  [1, fc.integer({ min: -30, max: 19 })],
  [3, null],
);

export const stepFaultsArb: fc.Arbitrary<StepFaults> = fc.record({
  dt: fc.integer({ min: 1, max: 40 }),
  ready: weighted<ConditionStatus>([50, 'Unknown'], [5, 'False'], [1, 'True']),
  leaseAge: ageArb,
  heartbeatAge: ageArb,
  power: weighted<StepFaults['power']>(
    [60, 'follow'],
    [4, 'api-error'],
    [1, 'started'],
    [3, fc.constantFrom(...ALL_POWER_STATES)],
  ),
  ownership: weighted<StepFaults['ownership']>(
    [200, 'owned'],
    [1, 'wrong-cluster'],
    [1, 'wrong-account'],
    [1, 'wrong-region'],
    [6, 'error'],
  ),
  disksError: rare(15),
  otherUnhealthy: weighted([30, 0], [6, fc.integer({ min: 1, max: 2 })], [1, fc.integer({ min: 3, max: 9 })]),
  totalNodes: fc.integer({ min: 3, max: 20 }),
  inFlight: weighted([20, 0], [1, fc.integer({ min: 1, max: 2 })]),
  optedOut: rare(300),
  nodeMissing: rare(300),
  providerId: weighted<StepFaults['providerId']>(
    [600, 'ok'],
    [1, 'missing'],
    [1, 'unparseable'],
    [1, 'unknown-provider'],
  ),
  otherInstanceEvidence: rare(300),
  nodeRecreated: rare(400),
  taintRemoved: rare(100),
  progress: weighted([2, true], [1, false]),
});

/** A world that ignores the fencer: every step's truth is generated afresh (the adversarial case). */
export const chaosStateArb: fc.Arbitrary<Omit<SimState, 'at'>> = fc.record({
  power: fc.constantFrom(...ALL_POWER_STATES),
  launchTime: weighted([4, fc.constant(-86_400)], [1, fc.integer({ min: -100, max: 1200 })]),
  taint: weighted<SimState['taint']>(
    [2, NO_TAINT],
    [1, { present: true, owned: false, record: null }],
    [
      1,
      fc.constantFrom('run-0', 'run-1').map((runId) => ({
        present: true,
        owned: true,
        record: { runId, fencedAt: t(0), instanceId: INSTANCE, proof: 'stopped' },
      })),
    ],
  ),
  pods: fc.array(
    fc
      .record({
        name: fc.constantFrom('db-0', 'db-1', 'web-0'),
        terminating: fc.boolean(),
        usesPersistentVolumes: fc.boolean(),
      })
      .map(({ name, ...rest }) => aPod(name, rest)),
    { maxLength: 3 },
  ),
  attachments: fc.array(
    fc.constantFrom('csi-0', 'csi-1').map((name) => aVolumeAttachment(name)),
    { maxLength: 2 },
  ),
  dataDisk: fc.constantFrom<DiskAttachment['state']>('attached', 'detaching', 'detached'),
  nodeUid: weighted([20, 'uid-worker-1'], [1, 'uid-other']),
});
