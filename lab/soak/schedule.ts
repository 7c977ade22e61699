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
  /** Someone else puts an out-of-service taint of their own on a node (NoSchedule: maintenance), and takes it off later. */
  ForeignTaint: 'foreign-taint',
  /** The kube-apiserver stops answering for a while (stopped, then continued), as in a restart. */
  ApiServerPause: 'apiserver-pause',
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
  /** The workers whose incidents the schedule draws. */
  readonly nodes: readonly string[];
  /** How long an incident lasts before the node heals or is powered back on. */
  readonly incidentSeconds: readonly [number, number];
  /** Only these kinds of fault. @default every kind the world has */
  readonly kinds?: readonly FaultKind[];
}

const kindsOf = (world: SoakWorld): FaultKind[] => [
  FaultKind.Partition,
  FaultKind.Partition,
  FaultKind.Crash,
  FaultKind.Throttle,
  FaultKind.LateEvent,
  FaultKind.ManualRace,
  FaultKind.ForeignTaint,
  FaultKind.ApiServerPause,
  ...(world === 'aws' || world === 'rbd' ? [FaultKind.StuckStop] : []),
  ...(world === 'rbd' ? [FaultKind.MgrPause, FaultKind.Partition] : []),
];

const isIncident = (kind: FaultKind): boolean => kind === FaultKind.Partition || kind === FaultKind.Crash;

/** How long a fault that is not an incident lasts. */
function secondsOf(kind: FaultKind, random: () => number, incident: readonly [number, number]): number {
  if (isIncident(kind)) return incident[0] + Math.floor(random() * (incident[1] - incident[0] + 1));
  // Someone's maintenance taint stays a while: long enough to meet an incident's un-fence.
  if (kind === FaultKind.ForeignTaint) return 60 + Math.floor(random() * 240);
  if (kind === FaultKind.ApiServerPause) return 5 + Math.floor(random() * 20);
  return 10 + Math.floor(random() * 30);
}

/**
 * The schedule: a fault every 20 to 60 s. An incident (partition, crash) takes a node that has none
 * and lasts `incidentSeconds`; two nodes may be in an incident at once, now and then three (beyond the
 * soak's blast-radius limit, so the fencer must hold back), and the last incident ends within the soak.
 * A manual fence or a stuck stop goes for a node in an incident when there is one (racing the
 * automated run), a maintenance taint for a node that has none (one in an incident only once its
 * machine is off). Every fault ends at least 30 s before the soak does.
 */
export function planFaults(options: ScheduleOptions): PlannedFault[] {
  const random = prng(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const kinds = kindsOf(options.world).filter((k) => !options.kinds || options.kinds.includes(k));
  if (kinds.length === 0) return [];
  const end = options.minutes * 60;
  const busyUntil = new Map<string, number>();
  const markedUntil = new Map<string, number>();
  const faults: PlannedFault[] = [];
  for (let at = 10 + Math.floor(random() * 20); at < end - 30; at += 20 + Math.floor(random() * 40)) {
    const kind = pick(kinds);
    // Every fault ends within the soak (the last 30 s are for the runs to finish): an incident that
    // would not is left out below, any other fault is cut short.
    const drawn = secondsOf(kind, random, options.incidentSeconds);
    const seconds = isIncident(kind) ? drawn : Math.min(drawn, end - 30 - at);
    const inIncident = options.nodes.filter((n) => (busyUntil.get(n) ?? 0) > at);
    // A node under someone's maintenance taint is not cut meanwhile: Kubernetes would release its
    // volumes on that taint (it reads the key alone), which is that party's doing, not the fencer's.
    const free = options.nodes.filter((n) => !inIncident.includes(n) && (markedUntil.get(n) ?? 0) <= at);
    const room = inIncident.length < 2 || (inIncident.length === 2 && random() < 0.25);
    let node: string | undefined;
    if (isIncident(kind)) {
      if (!room || free.length === 0 || at + seconds > end - 30) continue;
      node = pick(free);
      // Busy until it is back and un-fenced: no new incident on it before then.
      busyUntil.set(node, at + seconds + 60);
    } else if (kind === FaultKind.ManualRace || kind === FaultKind.StuckStop) {
      node = pick(inIncident.length > 0 ? inIncident : options.nodes);
    } else if (kind === FaultKind.ForeignTaint) {
      const unmarked = options.nodes.filter((n) => (markedUntil.get(n) ?? 0) <= at);
      if (unmarked.length === 0) continue;
      node = pick(unmarked);
      markedUntil.set(node, at + seconds + 30);
    }
    // A stop held in `stopping` lasts as long as the target's incident: the fencer's stop meets it.
    const held =
      kind === FaultKind.StuckStop && node
        ? Math.max(seconds, (busyUntil.get(node) ?? 0) - 60 - at)
        : seconds;
    faults.push({ step: faults.length, at, kind, ...(node ? { node } : {}), seconds: held });
  }
  return faults;
}
