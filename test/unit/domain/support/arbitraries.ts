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
import type { Taint } from '../../../../lib/ports/cluster.js';
import { aPod, aRequest, aVolumeAttachment, INSTANCE, OUR_TAINT, t } from './fixtures.js';
import { foreignTaint, RECORD_ANNOTATION, type SimState } from './world.js';

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
  /** `stale-record`: an earlier run's record whose taint was removed by hand. */
  readonly initialTaint: 'none' | 'ours-earlier-run' | 'theirs' | 'stale-record';
  readonly pods: number;
  readonly attachments: number;
  /** The cluster's in-flight limit. */
  readonly maxInFlight: number;
  /** Is the Node the machine? `duplicate-node`: another Node names the same instance. */
  readonly identity: 'ok' | 'ip-mismatch' | 'csi-mismatch' | 'no-signals' | 'duplicate-node';
  /** No Lease, and a Ready condition the kubelet never posted (a hand-made Node). */
  readonly neverSeenAlive: boolean;
  /** A pod that tolerates the out-of-service taint holds a volume on the node. */
  readonly toleratingHolder: boolean;
  /** What the node's volumes are: disks of its machine (EBS), network images (Ceph RBD), or both. */
  readonly volumes: 'disks' | 'images' | 'mixed';
  /** A storage fencer (Ceph) is configured for the images. */
  readonly storageFencer: boolean;
  /** The storage fencer has Ceph's own witness (each image's watchers). */
  readonly witness: boolean;
  /**
   * The node's last image lives on a storage cluster the fencer does not reach (ceph-csi serving two
   * clusters under one driver name): only its machine's power-off releases it.
   */
  readonly foreignCluster: boolean;
  /** The node has no providerID and no machine the fencer knows (bare metal); only with images. */
  readonly bareMetal: boolean;
  /** Another Node reports the node's InternalIP (a stale or hand-made Node). */
  readonly addressShared: boolean;
  /**
   * The fence's scope is wrong in another way: the node's storage-addresses annotation is malformed,
   * an entry to be blocklisted covers a storage daemon's address, or it is loopback (a kubelet that
   * reports 127.0.0.1 as its InternalIP).
   */
  readonly scopeFault: 'none' | 'malformed' | 'daemon' | 'unfenceable';
  /**
   * The node's kubelet last reported its network images in use (status.volumesInUse), a report that stays
   * while the node is silent, with or without their VolumeAttachments (a hand-made taint removes those).
   */
  readonly imagesReportedInUse: boolean;
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
      forceDeleteTolerating: fc.boolean(),
      leaseGraceSeconds: fc.integer({ min: 40, max: 120 }),
      maxUnhealthyNodes: fc.integer({ min: 1, max: 4 }),
      allowControlPlane: fc.boolean(),
    })
    .map(({ leaseGraceSeconds, maxUnhealthyNodes, allowControlPlane, ...rest }) =>
      aRequest({
        ...rest,
        limits: { ...DEFAULT_LIMITS, leaseGraceSeconds, maxUnhealthyNodes, allowControlPlane },
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
  initialTaint: weighted<RunConfig['initialTaint']>(
    [6, 'none'],
    [1, 'ours-earlier-run'],
    [1, 'theirs'],
    [1, 'stale-record'],
  ),
  pods: fc.integer({ min: 0, max: 3 }),
  attachments: fc.integer({ min: 0, max: 3 }),
  maxInFlight: fc.integer({ min: 1, max: 2 }),
  identity: weighted<RunConfig['identity']>(
    [16, 'ok'],
    [1, 'ip-mismatch'],
    [1, 'csi-mismatch'],
    [1, 'no-signals'],
    [1, 'duplicate-node'],
  ),
  neverSeenAlive: weighted([1, true], [19, false]),
  toleratingHolder: weighted([1, true], [7, false]),
  volumes: weighted<RunConfig['volumes']>([4, 'disks'], [2, 'images'], [1, 'mixed']),
  storageFencer: weighted([3, true], [1, false]),
  witness: weighted([1, true], [1, false]),
  foreignCluster: weighted([1, true], [9, false]),
  bareMetal: weighted([1, true], [4, false]),
  addressShared: weighted([1, true], [19, false]),
  imagesReportedInUse: weighted([1, true], [3, false]),
  scopeFault: weighted<RunConfig['scopeFault']>(
    [18, 'none'],
    [1, 'malformed'],
    [1, 'daemon'],
    [1, 'unfenceable'],
  ),
});

/** What goes wrong (or right) on one step. */
export interface StepFaults {
  readonly dt: number;
  /** Seconds between reading the node and the provider's answer (which ends the observation). */
  readonly latency: number;
  readonly ready: ConditionStatus;
  /** Seconds since the Lease/heartbeat was renewed; negative is a clock-skewed future; null is none. */
  readonly leaseAge: number | null;
  /**
   * Seconds the Lease's renewer's clock runs behind the API server's (negative: ahead). The server stamps
   * the write on its own clock: `leaseAge - renewerClockBehind` seconds before the read, to the second.
   */
  readonly renewerClockBehind: number;
  readonly heartbeatAge: number | null;
  /** `follow` reports the simulated truth; a PowerState reports that instead (a stale or odd answer). */
  readonly power: 'follow' | 'api-error' | 'started' | PowerState;
  /** `not-found`: the provider no longer knows the machine, and reports it so (power `not-found`). */
  readonly ownership:
    | 'owned'
    | 'wrong-cluster'
    | 'wrong-account'
    | 'wrong-region'
    | 'not-found'
    | 'error'
    /** The adapter judged the error permanent: the credentials were rejected, or a permission is missing. */
    | 'credentials-rejected'
    | 'call-rejected';
  readonly disksError: boolean;
  readonly otherUnhealthy: number;
  readonly totalNodes: number;
  readonly inFlight: number;
  readonly optedOut: boolean;
  readonly nodeMissing: boolean;
  readonly providerId: 'ok' | 'missing' | 'unparseable' | 'unknown-provider';
  readonly otherInstanceEvidence: boolean;
  readonly nodeRecreated: boolean;
  /** Someone removes every out-of-service taint by hand, leaving the fencer's annotation. */
  readonly taintRemovedByHand: boolean;
  /** Someone adds an out-of-service taint of their own. */
  readonly foreignTaint: { readonly value: string; readonly effect: Taint['effect'] } | null;
  /** The storage cluster's API fails this step with that code. */
  readonly storageFault: 'MgrUnreachable' | 'AuthRefused' | 'CommandFailed' | null;
  /** Someone removes the node's blocklist entries (or they lapse). */
  readonly blocklistLapse: boolean;
  /** The storage cluster's witness cannot be read this step. */
  readonly witnessFault: boolean;
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
  latency: weighted([6, 0], [3, fc.integer({ min: 1, max: 5 })], [2, fc.integer({ min: 6, max: 40 })]),
  ready: weighted<ConditionStatus>([50, 'Unknown'], [5, 'False'], [1, 'True']),
  leaseAge: ageArb,
  renewerClockBehind: weighted(
    [20, 0],
    [3, fc.integer({ min: 1, max: 600 })],
    [1, fc.integer({ min: -60, max: -1 })],
  ),
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
    [2, 'not-found'],
    [6, 'error'],
    [1, 'credentials-rejected'],
    [1, 'call-rejected'],
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
  taintRemovedByHand: rare(60),
  storageFault: weighted<StepFaults['storageFault']>(
    [60, null],
    [3, 'MgrUnreachable'],
    [1, 'AuthRefused'],
    [1, 'CommandFailed'],
  ),
  blocklistLapse: rare(60),
  witnessFault: rare(20),
  foreignTaint: weighted<StepFaults['foreignTaint']>(
    [60, null],
    [
      1,
      fc.record({
        value: fc.constantFrom('nodeshutdown', 'maintenance'),
        effect: fc.constantFrom<Taint['effect']>('NoExecute', 'NoSchedule'),
      }),
    ],
  ),
  progress: weighted([2, true], [1, false]),
});

const OUR_PORT_TAINT: Taint = {
  key: OUR_TAINT.key,
  value: OUR_TAINT.value ?? undefined,
  effect: 'NoExecute',
  timeAdded: OUR_TAINT.timeAdded ?? undefined,
};

/** The taints and annotations a world that ignores the fencer may show: none, ours, theirs, a stale record. */
const marksArb: fc.Arbitrary<Pick<SimState, 'taints' | 'annotations'>> = fc
  .record({
    ours: fc.boolean(),
    theirs: fc.constantFrom('none', 'NoExecute', 'NoSchedule'),
    record: fc.constantFrom('none', 'run-0', 'run-1'),
  })
  .map(({ ours, theirs, record }) => {
    // Kubernetes keeps one taint per key and effect: a NoExecute one is either ours or theirs.
    const foreign =
      theirs === 'NoSchedule'
        ? [foreignTaint(20, 'maintenance', 'NoSchedule')]
        : theirs === 'NoExecute' && !ours
          ? [foreignTaint(20)]
          : [];
    const taints = [...(ours ? [OUR_PORT_TAINT] : []), ...foreign];
    const fenceRecord = {
      runId: record,
      fencedAt: t(0),
      instanceId: INSTANCE,
      proof: 'stopped',
      taint: OUR_TAINT,
    };
    const annotations: Record<string, string> =
      record === 'none' ? {} : { [RECORD_ANNOTATION]: JSON.stringify(fenceRecord) };
    return { taints, annotations };
  });

/** A world that ignores the fencer: every step's truth is generated afresh (the adversarial case). */
export const chaosStateArb: fc.Arbitrary<Omit<SimState, 'at' | 'resourceVersion'>> = fc
  .record({
    power: fc.constantFrom(...ALL_POWER_STATES),
    launchTime: weighted([4, fc.constant(-86_400)], [1, fc.integer({ min: -100, max: 1200 })]),
    marks: marksArb,
    pods: fc.array(
      fc
        .record({
          name: fc.constantFrom('db-0', 'db-1', 'web-0'),
          terminating: fc.boolean(),
          holds: fc.boolean(),
          toleratesOutOfService: weighted([1, true], [4, false]),
        })
        .map(({ name, holds, ...rest }) =>
          aPod(name, { ...rest, claimNames: holds ? [`data-${name}`] : [] }),
        ),
      { maxLength: 3 },
    ),
    attachments: fc.array(
      fc.constantFrom('csi-0', 'csi-1').map((name) => aVolumeAttachment(name)),
      { maxLength: 2 },
    ),
    dataDisk: fc.constantFrom<DiskAttachment['state']>('attached', 'detaching', 'detached'),
    nodeUid: weighted([20, 'uid-worker-1'], [1, 'uid-other']),
    nodeInstance: weighted([20, INSTANCE], [1, 'i-0aaaaaaaaaaaaaaa1']),
    blocklist: fc.constantFrom<string[]>([], ['10.0.1.23/32'], ['10.0.1.23:0/3123456789']),
    watchHeld: fc.boolean(),
  })
  .map(({ marks, ...rest }) => ({ ...rest, ...marks }));
