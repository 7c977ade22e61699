/**
 * A soak's fault schedule, drawn from a seed: the same seed and length always give the same schedule,
 * so any failure a soak finds can be replayed. Pure: no I/O, no clock.
 */

/** Which world the soak runs in: EC2 instances with EBS, ECS instances with cloud disks, or Ceph RBD. */
export type SoakWorld = 'aws' | 'alibaba' | 'rbd';

export const FaultKind = {
  /** The node's network is cut: its kubelet goes silent, its machine (and its writers) keep running. */
  Partition: 'partition',
  /** The node's machine stops: kubelet and writers die with it. */
  Crash: 'crash',
  /** The provider throttles every call of the fencer for a while. */
  Throttle: 'throttle',
  /** The provider leaves the next stop in `stopping` for a while (EC2 only). */
  StuckStop: 'stuck-stop',
  /** The trigger of an earlier incident is delivered again, late. */
  LateEvent: 'late-event',
  /** An operator runs `fencer fence` on a node the automated path may be fencing too. */
  ManualRace: 'manual-race',
  /** The Ceph mgr stops answering for a while (RBD only). */
  MgrPause: 'mgr-pause',
  /** Someone else puts an out-of-service taint of their own on a healthy node, and takes it off later. */
  ForeignTaint: 'foreign-taint',
} as const;
export type FaultKind = (typeof FaultKind)[keyof typeof FaultKind];

/** One planned fault: when (seconds from the start), on which node, for how long. */
export interface PlannedFault {
  readonly step: number;
  readonly at: number;
  readonly kind: FaultKind;
  readonly node?: string;
  readonly seconds: number;
}

/** mulberry32: a small, fast, well-mixed 32-bit generator; enough for schedules, never for secrets. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface ScheduleOptions {
  readonly seed: number;
  readonly minutes: number;
  readonly world: SoakWorld;
  /** The workers whose incidents the schedule draws (the ones the stateful apps run on). */
  readonly nodes: readonly string[];
  /** How long an incident lasts before the node heals or is powered back on. @default 150..240 s */
  readonly incidentSeconds?: readonly [number, number];
}

const kindsOf = (world: SoakWorld): FaultKind[] => [
  FaultKind.Partition,
  FaultKind.Partition,
  FaultKind.Crash,
  FaultKind.Throttle,
  FaultKind.LateEvent,
  FaultKind.ManualRace,
  FaultKind.ForeignTaint,
  ...(world === 'aws' || world === 'rbd' ? [FaultKind.StuckStop] : []),
  ...(world === 'rbd' ? [FaultKind.MgrPause, FaultKind.Partition] : []),
];

/**
 * The schedule: a fault every 20 to 60 s. An incident (partition, crash) takes a node that has none
 * running and lasts `incidentSeconds`; at most two nodes are in an incident at once, so the cluster
 * keeps a node to move to. The last incident starts early enough to end within the soak.
 */
export function planFaults(options: ScheduleOptions): PlannedFault[] {
  const random = prng(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const [shortest, longest] = options.incidentSeconds ?? [150, 240];
  const end = options.minutes * 60;
  const busyUntil = new Map<string, number>();
  const faults: PlannedFault[] = [];
  for (let at = 10 + Math.floor(random() * 20); at < end - 30; at += 20 + Math.floor(random() * 40)) {
    const kind = pick(kindsOf(options.world));
    const seconds =
      kind === FaultKind.Partition || kind === FaultKind.Crash
        ? shortest + Math.floor(random() * (longest - shortest + 1))
        : 10 + Math.floor(random() * 30);
    const free = options.nodes.filter((n) => (busyUntil.get(n) ?? 0) <= at);
    const inIncident = options.nodes.length - free.length;
    const incident = kind === FaultKind.Partition || kind === FaultKind.Crash;
    if (incident && (inIncident >= 2 || free.length === 0 || at + seconds > end - 30)) continue;
    const node =
      incident || kind === FaultKind.ManualRace || kind === FaultKind.ForeignTaint
        ? pick(free.length > 0 ? free : options.nodes)
        : undefined;
    if (incident && node) busyUntil.set(node, at + seconds + 60);
    faults.push({ step: faults.length, at, kind, ...(node ? { node } : {}), seconds });
  }
  return faults;
}
