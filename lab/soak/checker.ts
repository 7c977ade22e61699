/**
 * The soak's checker: the fencing contract judged over a whole history, from the world's own records
 * (records.ts) alone. It shares no code with the fencer, as the property tests' oracle does not: it reads
 * no fence record the fencer would trust, calls no rule of its, and knows the truth the fencer cannot
 * (which node the soak cut, crashed or healed, and when).
 */
import type { PowerOffCall, Sample, SoakRecords, TruthEvent } from './records.js';

/** One broken promise, with when it broke and the schedule's step to replay it from. */
export interface Violation {
  readonly invariant:
    | 'two-writers'
    | 'stopped-live-node'
    | 'foreign-taint-removed'
    | 'run-without-reason'
    | 'unfenced-without-power-cycle'
    | 'in-flight-over-limit'
    | 'unhealthy-over-limit';
  readonly t: number;
  readonly node?: string;
  readonly detail: string;
  /** The last step of the schedule at or before `t`. */
  readonly step?: number;
}

/**
 * A node healed less than this long before a power-off may not have renewed its Lease yet: no fencer
 * can tell it from a dead one. A power-off later than that after the heal is one of a live node.
 */
export const HEALED_GRACE_MS = 5_000;

const OFF = new Set(['stopped', 'terminated', 'not-found', 'Stopped', 'Released']);
const RUNNING = new Set(['running', 'Running', 'pending', 'Starting', 'stopping', 'Stopping']);

/** Per node, when the soak had it cut or crashed: [from, to) intervals (to: Infinity while it lasts). */
function downIntervals(truth: readonly TruthEvent[]): Map<string, [number, number][]> {
  const down = new Map<string, [number, number][]>();
  const open = new Map<string, number>();
  for (const e of [...truth].sort((a, b) => a.t - b.t)) {
    if (!e.node) continue;
    if (e.action === 'cut' || e.action === 'crash') {
      if (!open.has(e.node)) open.set(e.node, e.t);
    } else if (e.action === 'reconnect' || e.action === 'restore') {
      const from = open.get(e.node);
      if (from === undefined) continue;
      down.set(e.node, [...(down.get(e.node) ?? []), [from, e.t]]);
      open.delete(e.node);
    }
  }
  for (const [node, from] of open)
    down.set(node, [...(down.get(node) ?? []), [from, Number.POSITIVE_INFINITY]]);
  return down;
}

const isDown = (down: Map<string, [number, number][]>, node: string, t: number): boolean =>
  (down.get(node) ?? []).some(([from, to]) => from <= t && t < to);

/** The sample at or just before `t`. */
function sampleAt(samples: readonly Sample[], t: number): Sample | undefined {
  let found: Sample | undefined;
  for (const s of samples) {
    if (s.t > t) break;
    found = s;
  }
  return found;
}

const stepAt = (truth: readonly TruthEvent[], t: number): number | undefined =>
  truth.filter((e) => e.t <= t && e.step !== undefined).at(-1)?.step;

/**
 * A disk has one writer at a time: a node holds a disk from its attachment until its machine is off, or
 * until the disk leaves it while its kubelet is alive (a clean unmount). A partitioned node whose
 * attachment was removed still writes: its machine runs.
 */
function twoWritersOnDisks(records: SoakRecords, down: Map<string, [number, number][]>): Violation[] {
  const holding = new Map<string, Set<string>>();
  const found: Violation[] = [];
  for (const s of records.samples) {
    for (const [volume, v] of Object.entries(s.volumes)) {
      if (v.kind !== 'disk') continue;
      const holders = holding.get(volume) ?? new Set<string>();
      for (const node of v.attachedTo) holders.add(node);
      for (const node of [...holders]) {
        const instance = s.nodes[node]?.instance ?? 'unknown';
        const cleanlyLeft = !v.attachedTo.includes(node) && !isDown(down, node, s.t);
        if (OFF.has(instance) || cleanlyLeft) holders.delete(node);
      }
      holding.set(volume, holders);
      const writing = [...holders].filter((n) => RUNNING.has(s.nodes[n]?.instance ?? ''));
      if (writing.length > 1 && !found.some((f) => f.detail.startsWith(`${volume}:`))) {
        found.push({
          invariant: 'two-writers',
          t: s.t,
          detail: `${volume}: written by ${writing.join(' and ')}, both machines running`,
        });
      }
    }
  }
  return found;
}

/** An image has one writer at a time: no client writes after another node's client has written. */
function twoWritersOnImages(records: SoakRecords): Violation[] {
  const found: Violation[] = [];
  const byImage = new Map<string, typeof records.writes>();
  for (const w of records.writes.filter((w) => w.ok))
    byImage.set(w.image, [...(byImage.get(w.image) ?? []), w]);
  for (const [image, writes] of byImage) {
    const sorted = [...writes].sort((a, b) => a.t - b.t);
    for (let i = 1; i < sorted.length; i++) {
      const [before, now] = [sorted[i - 1], sorted[i]];
      if (!before || !now || before.node === now.node) continue;
      // `now.node` took over: any later write of `before.node` lands beside it.
      const late = sorted.slice(i + 1).find((w) => w.node === before.node && w.started >= now.t);
      if (late) {
        found.push({
          invariant: 'two-writers',
          t: late.t,
          node: late.node,
          detail: `${image}: ${late.node} wrote after ${now.node} had written`,
        });
        break;
      }
    }
  }
  return found;
}

function stoppedLiveNodes(records: SoakRecords, down: Map<string, [number, number][]>): Violation[] {
  const aliveThrough = (node: string, t: number): boolean => {
    const last = (down.get(node) ?? []).filter(([from]) => from <= t).at(-1);
    return last === undefined || last[1] <= t - HEALED_GRACE_MS;
  };
  return records.powerOffs
    .filter((call: PowerOffCall) => aliveThrough(call.node, call.t))
    .map((call) => ({
      invariant: 'stopped-live-node' as const,
      t: call.t,
      node: call.node,
      detail: `${call.instanceId} of ${call.node} powered off while the node was alive`,
    }));
}

function foreignTaintsRemoved(records: SoakRecords): Violation[] {
  const found: Violation[] = [];
  const adds = records.truth.filter((e) => e.action === 'foreign-taint-add' && e.node);
  for (const add of adds) {
    const node = add.node as string;
    const removedByUs = records.truth.find(
      (e) => e.action === 'foreign-taint-remove' && e.node === node && e.t > add.t,
    );
    const until = removedByUs?.t ?? Number.POSITIVE_INFINITY;
    const gone = records.samples.find(
      (s) =>
        s.t > add.t + 2_000 &&
        s.t < until &&
        s.nodes[node] !== undefined &&
        !(s.nodes[node]?.taints ?? []).some((t) => t.timeAdded === add.detail),
    );
    if (gone) {
      found.push({
        invariant: 'foreign-taint-removed',
        t: gone.t,
        node,
        detail: `the out-of-service taint someone else added to ${node} at ${add.detail} was removed`,
      });
    }
  }
  return found;
}

function runsWithoutReason(records: SoakRecords): Violation[] {
  return records.runs
    .filter(
      (r) => r.endedAt === null || r.outcome === null || (/refused|failed/.test(r.outcome) && !r.reason),
    )
    .map((r) => ({
      invariant: 'run-without-reason' as const,
      t: r.endedAt ?? r.startedAt,
      node: r.node,
      detail: `run ${r.name} ${r.endedAt === null ? 'never ended' : `ended ${r.outcome} without a reason`}`,
    }));
}

/** The fencer's own taint left a node only after the node was Ready and its machine had started again since. */
function unfencedWithoutPowerCycle(records: SoakRecords): Violation[] {
  const found: Violation[] = [];
  for (let i = 1; i < records.samples.length; i++) {
    const [before, now] = [records.samples[i - 1] as Sample, records.samples[i] as Sample];
    for (const [node, was] of Object.entries(before.nodes)) {
      const ours = was.recordedTaintAt;
      if (!ours || !was.taints.some((t) => t.timeAdded === ours)) continue;
      const is = now.nodes[node];
      if (!is || is.taints.some((t) => t.timeAdded === ours)) continue;
      // Removed between the two samples: was the machine off at some sample since the taint, and is the node Ready?
      const since = Date.parse(ours);
      const cycled = records.samples.some(
        (s) => s.t >= since && s.t <= now.t && OFF.has(s.nodes[node]?.instance ?? ''),
      );
      if (!cycled || is.ready !== 'True') {
        found.push({
          invariant: 'unfenced-without-power-cycle',
          t: now.t,
          node,
          detail: `the fencer's taint of ${ours} left ${node} ${cycled ? 'before it was Ready' : 'with no power cycle since'}`,
        });
      }
    }
  }
  return found;
}

/** At no moment more fences in progress than the limit, and no power-off with more nodes unhealthy than it allows. */
function limits(records: SoakRecords): Violation[] {
  const found: Violation[] = [];
  // A fence is in progress from its first power-off until the run for that node ends.
  const fences = records.powerOffs.map((call) => {
    const run = records.runs.find(
      (r) =>
        r.node === call.node && r.startedAt <= call.t && (r.endedAt ?? Number.POSITIVE_INFINITY) >= call.t,
    );
    return { node: call.node, from: call.t, to: run?.endedAt ?? call.t };
  });
  for (const f of fences) {
    const during = new Set(fences.filter((g) => g.from <= f.from && f.from <= g.to).map((g) => g.node));
    if (during.size > records.limits.maxInFlight) {
      found.push({
        invariant: 'in-flight-over-limit',
        t: f.from,
        node: f.node,
        detail: `${during.size} fences in progress at once (${[...during].join(', ')}), the limit is ${records.limits.maxInFlight}`,
      });
    }
    // The world as the fencer could last have seen it before the call (a second's sampling earlier).
    const nodes = Object.values(sampleAt(records.samples, f.from - 1_000)?.nodes ?? {});
    const unhealthy = nodes.filter((n) => n.ready !== 'True');
    const fraction =
      unhealthy.length > 1 && unhealthy.length / nodes.length > records.limits.maxUnhealthyFraction;
    if (unhealthy.length > records.limits.maxUnhealthyNodes || fraction) {
      found.push({
        invariant: 'unhealthy-over-limit',
        t: f.from,
        node: f.node,
        detail: `${f.node} powered off with ${unhealthy.length} of ${nodes.length} nodes unhealthy, the limits are ${records.limits.maxUnhealthyNodes} and ${records.limits.maxUnhealthyFraction}`,
      });
    }
  }
  return found;
}

/** Every broken promise of the contract in a soak's history, oldest first. */
export function check(records: SoakRecords): Violation[] {
  const down = downIntervals(records.truth);
  const all = [
    ...twoWritersOnDisks(records, down),
    ...twoWritersOnImages(records),
    ...stoppedLiveNodes(records, down),
    ...foreignTaintsRemoved(records),
    ...runsWithoutReason(records),
    ...unfencedWithoutPowerCycle(records),
    ...limits(records),
  ];
  return all
    .map((v) => {
      const step = stepAt(records.truth, v.t);
      return step === undefined ? v : { ...v, step };
    })
    .sort((a, b) => a.t - b.t);
}
