/**
 * The soak's checker: the fencing contract judged over a whole history, from the world's own records
 * (records.ts) alone. It shares no code with the fencer, as the property tests' oracle does not: it reads
 * no fence record the fencer would trust, calls no rule of its, and knows the truth the fencer cannot
 * (which node the soak cut, crashed or healed, and when).
 */
import { MACHINE_OFF, type PowerOffCall, type Sample, type SoakRecords, type TruthEvent } from './records.js';

/** One broken promise, with when it broke and the schedule's step to replay it from. */
export interface Violation {
  readonly invariant:
    | 'two-writers'
    | 'released-while-writing'
    | 'stopped-live-node'
    | 'foreign-taint-removed'
    | 'foreign-blocklist-removed'
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
        if (MACHINE_OFF.has(instance) || cleanlyLeft) holders.delete(node);
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

/**
 * A write logged this long after a taint's `timeAdded` began after the taint: the API server stamps
 * `timeAdded` to the second (up to 1 s early), and the clients' clocks are this host's.
 */
const TAINT_STAMP_SLACK_MS = 1_500;

/** The fencer's taints as they first appeared: node, when (its `timeAdded`), and the sample that saw it. */
function fencerTaints(records: SoakRecords): { node: string; at: number; seen: number }[] {
  const seen = new Set<string>();
  const found: { node: string; at: number; seen: number }[] = [];
  for (const s of records.samples) {
    for (const [node, n] of Object.entries(s.nodes)) {
      const ours = n.recordedTaintAt;
      if (!ours || seen.has(`${node} ${ours}`) || !n.taints.some((t) => t.timeAdded === ours)) continue;
      seen.add(`${node} ${ours}`);
      found.push({ node, at: Date.parse(ours), seen: s.t });
    }
  }
  return found;
}

/**
 * The fencer's taint releases the node's volumes: by then its writers must be stopped. A machine the
 * provider powers off must be off in the samples around the taint; a node's RBD clients must have no
 * write accepted that began after it (a blocklisted client's writes fail, a dead one writes none).
 */
function releasedWhileWriting(records: SoakRecords): Violation[] {
  const found: Violation[] = [];
  for (const taint of fencerTaints(records)) {
    const machine = !records.bareMetal.includes(taint.node);
    const around = records.samples.filter((s) => s.t >= taint.seen && s.t <= taint.seen + 3_000);
    const running = around.find((s) => RUNNING.has(s.nodes[taint.node]?.instance ?? ''));
    if (machine && running) {
      found.push({
        invariant: 'released-while-writing',
        t: running.t,
        node: taint.node,
        detail: `${taint.node} tainted out-of-service while its machine was ${running.nodes[taint.node]?.instance}`,
      });
      continue;
    }
    const late = records.writes.find(
      (w) => w.node === taint.node && w.ok && w.started > taint.at + TAINT_STAMP_SLACK_MS,
    );
    const restarted =
      late &&
      records.truth.some(
        (e) => e.node === taint.node && e.action === 'restore' && e.t > taint.at && e.t < late.started,
      );
    if (late && !restarted) {
      found.push({
        invariant: 'released-while-writing',
        t: late.t,
        node: taint.node,
        detail: `${taint.node}'s client of ${late.image} wrote after the fencer's taint of ${new Date(taint.at).toISOString()}`,
      });
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

/** Someone else's blocklist entry stays until they take it off, whatever the fencer lifts meanwhile. */
function foreignBlocklistRemoved(records: SoakRecords): Violation[] {
  const found: Violation[] = [];
  for (const add of records.truth.filter((e) => e.action === 'foreign-blocklist-add' && e.detail)) {
    const entry = add.detail as string;
    const removedByThem = records.truth.find(
      (e) => e.action === 'foreign-blocklist-remove' && e.detail === entry && e.t > add.t,
    );
    const until = removedByThem?.t ?? Number.POSITIVE_INFINITY;
    const gone = records.samples.find(
      (s) => s.t > add.t + 2_000 && s.t < until && s.blocklist !== undefined && !s.blocklist.includes(entry),
    );
    if (gone) {
      found.push({
        invariant: 'foreign-blocklist-removed',
        t: gone.t,
        ...(add.node ? { node: add.node } : {}),
        detail: `the blocklist entry ${entry} someone else added was removed`,
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

/**
 * The fencer's own taint left a node only after the node was Ready and its machine had started again
 * since (a bare-metal host: rebooted, a new bootID).
 */
function unfencedWithoutPowerCycle(records: SoakRecords): Violation[] {
  const found: Violation[] = [];
  for (let i = 1; i < records.samples.length; i++) {
    const [before, now] = [records.samples[i - 1] as Sample, records.samples[i] as Sample];
    for (const [node, was] of Object.entries(before.nodes)) {
      const ours = was.recordedTaintAt;
      if (!ours || !was.taints.some((t) => t.timeAdded === ours)) continue;
      const is = now.nodes[node];
      if (!is || is.taints.some((t) => t.timeAdded === ours)) continue;
      // Removed between the two samples: was the machine off at some sample since the taint (or, for a
      // bare-metal host, has its kubelet a new bootID since), and is the node Ready?
      const since = Date.parse(ours);
      const bootAtTaint = records.samples.find((s) => s.t >= since)?.nodes[node]?.bootId;
      const rebooted = records.bareMetal.includes(node) && Boolean(is.bootId) && is.bootId !== bootAtTaint;
      const cycled =
        rebooted ||
        records.samples.some(
          (s) => s.t >= since && s.t <= now.t && MACHINE_OFF.has(s.nodes[node]?.instance ?? ''),
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

/** Whether more nodes are unhealthy than the limits allow, as the fencer counts (lib's blast radius). */
function overLimit(sample: Sample, limits: SoakRecords['limits']): boolean {
  const nodes = Object.values(sample.nodes);
  const unhealthy = nodes.filter((n) => n.ready !== 'True').length;
  const fraction = unhealthy > 1 && unhealthy / nodes.length > limits.maxUnhealthyFraction;
  return unhealthy > limits.maxUnhealthyNodes || fraction;
}

/** Samples this long before a power-off must all be over the limit for it to count as a breach. */
const LIMIT_WINDOW_MS = 5_000;

/**
 * At no moment more fencings in progress than the in-flight limit, and no power-off while more nodes
 * are unhealthy than the limits allow. A fencing is in progress at least from its power-off until the
 * fencer's taint appears (or its run ends). The unhealthy count is judged over the five seconds before
 * the call, every sample of them over the limit, so a node turning NotReady in the fencer's last
 * second is not held against it.
 */
function limits(records: SoakRecords): Violation[] {
  const found: Violation[] = [];
  const taints = fencerTaints(records);
  const last = records.samples.at(-1)?.t ?? Number.POSITIVE_INFINITY;
  const fences = records.powerOffs.map((call) => {
    const taint = taints.find((t) => t.node === call.node && t.seen >= call.t)?.seen;
    const run = records.runs.find(
      (r) => r.node === call.node && r.startedAt <= call.t && (r.endedAt ?? last) >= call.t,
    );
    return { node: call.node, from: call.t, to: Math.min(taint ?? last, run?.endedAt ?? last) };
  });
  for (const f of fences) {
    const during = new Set(fences.filter((g) => g.from <= f.from && f.from < g.to).map((g) => g.node));
    if (during.size > records.limits.maxInFlight) {
      found.push({
        invariant: 'in-flight-over-limit',
        t: f.from,
        node: f.node,
        detail: `${during.size} fencings in progress at once (${[...during].join(', ')}), the limit is ${records.limits.maxInFlight}`,
      });
    }
    const window = records.samples.filter((s) => s.t >= f.from - LIMIT_WINDOW_MS && s.t <= f.from);
    if (window.length > 0 && window.every((s) => overLimit(s, records.limits))) {
      const nodes = Object.values(window.at(-1)?.nodes ?? {});
      found.push({
        invariant: 'unhealthy-over-limit',
        t: f.from,
        node: f.node,
        detail: `${f.node} powered off with ${nodes.filter((n) => n.ready !== 'True').length} of ${nodes.length} nodes unhealthy, the limits are ${records.limits.maxUnhealthyNodes} nodes and ${records.limits.maxUnhealthyFraction}`,
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
    ...releasedWhileWriting(records),
    ...stoppedLiveNodes(records, down),
    ...foreignTaintsRemoved(records),
    ...foreignBlocklistRemoved(records),
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
