/**
 * The soak's report, from its records alone: each incident (a node cut off or crashed) and what became
 * of the databases on it (failure → replacement Running, by parts: NotReady, a run started, the
 * fencer's taint, Running), the runs by outcome and refusals by reason, and every violation with the
 * seed and the step to replay it.
 */
import type { Violation } from './checker.js';
import type { AutomatedRun } from './path.js';
import type { RunEnd, Sample, SoakRecords } from './records.js';
import type { FaultKind, PlannedFault, SoakWorld } from './schedule.js';
import type { SoakProfile } from './world.js';

/** One database on a node that failed, and when each milestone came (seconds after the failure). */
export interface Recovery {
  readonly node: string;
  readonly volume: string;
  readonly incident: 'cut' | 'crash';
  readonly step: number | undefined;
  /** How the volume came back: the run that tainted the node (`automated/health-check`, `manual`, ...). */
  readonly path: string;
  readonly notReady: number | null;
  readonly runStarted: number | null;
  readonly tainted: number | null;
  readonly running: number | null;
  /** Whether it was Running elsewhere before the node was back (what the fencer is for). */
  readonly whileDown: boolean;
}

export interface Distribution {
  readonly n: number;
  readonly median: number;
  readonly p90: number;
  readonly max: number;
}

export interface SoakReport {
  readonly text: string;
  readonly recoveries: readonly Recovery[];
  /** Failure → replacement Running, per path, for the volumes recovered while their node was down. */
  readonly ttr: Readonly<Record<string, Distribution>>;
  readonly refusals: Readonly<Record<string, number>>;
  readonly violations: readonly Violation[];
}

const seconds = (from: number, to: number | undefined | null): number | null =>
  to === undefined || to === null ? null : Math.round((to - from) / 100) / 10;

export function distribution(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { n: sorted.length, median: at(0.5), p90: at(0.9), max: sorted.at(-1) ?? 0 };
}

/** The run that released the node: one running when the fencer's taint first appeared. */
function releasingRun(runs: readonly (RunEnd | AutomatedRun)[], node: string, taintSeen: number) {
  return runs.find(
    (r) =>
      r.node === node &&
      r.path !== 'unfence' &&
      r.startedAt <= taintSeen &&
      (r.endedAt ?? Infinity) >= taintSeen - 2_000,
  );
}

function recoveriesOf(records: SoakRecords): Recovery[] {
  const found: Recovery[] = [];
  const { samples, truth } = records;
  for (const failure of truth.filter((e) => (e.action === 'cut' || e.action === 'crash') && e.node)) {
    const node = failure.node as string;
    const back = truth.find(
      (e) => e.node === node && e.t > failure.t && (e.action === 'reconnect' || e.action === 'restore'),
    );
    const before = [...samples].reverse().find((s) => s.t <= failure.t);
    const after = samples.filter((s) => s.t > failure.t);
    const first = (ok: (s: Sample) => boolean) => after.find(ok)?.t;
    const notReady = first((s) => s.nodes[node]?.ready !== 'True');
    const taint = first((s) => {
      const n = s.nodes[node];
      return Boolean(
        n?.recordedTaintAt &&
          n.taints.some(
            (t) => t.timeAdded === n.recordedTaintAt && Date.parse(t.timeAdded ?? '') >= failure.t - 1_000,
          ),
      );
    });
    const run = records.runs
      .filter((r) => r.node === node && r.path !== 'unfence' && r.startedAt >= failure.t)
      .sort((a, b) => a.startedAt - b.startedAt)[0];
    const releasing = taint === undefined ? undefined : releasingRun(records.runs, node, taint);
    for (const [volume, v] of Object.entries(before?.volumes ?? {})) {
      if (v.pod?.node !== node) continue;
      const running = first((s) => {
        const pod = s.volumes[volume]?.pod;
        return Boolean(pod && pod.node !== node && pod.node !== null && pod.phase === 'Running');
      });
      found.push({
        node,
        volume,
        incident: failure.action as 'cut' | 'crash',
        step: failure.step,
        path: releasing
          ? `${releasing.path}${'source' in releasing ? `/${releasing.source}` : ''}`
          : running === undefined
            ? 'not recovered'
            : 'after the node was back',
        notReady: seconds(failure.t, notReady),
        // The run that tainted the node, else the first one after the failure (one refused, say).
        runStarted: seconds(failure.t, releasing?.startedAt ?? run?.startedAt),
        tainted: seconds(failure.t, taint),
        running: seconds(failure.t, running),
        whileDown: running !== undefined && (back === undefined || running < back.t),
      });
    }
  }
  return found;
}

/** What the report tells of how the soak was run (the soak's own options, soak.ts). */
export interface ReportedOptions {
  readonly world: SoakWorld;
  readonly seed: number;
  readonly minutes: number;
  readonly profile?: string;
  readonly kinds?: readonly FaultKind[];
  readonly sabotage?: string;
  readonly baseline?: boolean;
}

/** The command that replays this soak's schedule (and its sabotage, if any). */
export function replayCommand(options: ReportedOptions): string {
  return [
    `npm run soak -- --world ${options.world} --seed ${options.seed} --minutes ${options.minutes}`,
    `--profile ${options.profile ?? 'shipped'}`,
    ...(options.kinds ? [`--faults ${options.kinds.join(',')}`] : []),
    ...(options.sabotage ? [`--sabotage ${options.sabotage}`] : []),
    ...(options.baseline ? ['--baseline'] : []),
  ].join(' ');
}

const fmt = (s: number | null) => (s === null ? '—' : `${s.toFixed(1)} s`);
const line = (d: Distribution | null) =>
  d ? `median ${fmt(d.median)}, p90 ${fmt(d.p90)}, max ${fmt(d.max)} (n=${d.n})` : 'none';

function countBy<T>(items: readonly T[], key: (item: T) => string | null): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    if (k !== null) counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

const listed = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none';

/** The parts of the recoveries along one path, as median seconds after the failure. */
function partsLine(recoveries: readonly Recovery[]): string {
  const median = (pick: (r: Recovery) => number | null) =>
    distribution(recoveries.map(pick).filter((v): v is number => v !== null))?.median ?? null;
  return `NotReady +${fmt(median((r) => r.notReady))}, run started +${fmt(median((r) => r.runStarted))}, tainted +${fmt(median((r) => r.tainted))}, Running +${fmt(median((r) => r.running))}`;
}

export function soakReport(input: {
  readonly options: ReportedOptions;
  readonly profile: SoakProfile;
  readonly schedule: readonly PlannedFault[];
  readonly records: SoakRecords;
  readonly violations: readonly Violation[];
  readonly automated: readonly AutomatedRun[];
}): SoakReport {
  const { options, profile, schedule, records, violations } = input;
  const recoveries = recoveriesOf(records);
  const recovered = recoveries.filter((r) => r.whileDown && r.running !== null);
  const byPath = new Map<string, Recovery[]>();
  for (const r of recovered) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  const ttr: Record<string, Distribution> = {};
  for (const [path, rs] of byPath) {
    const d = distribution(rs.map((r) => r.running ?? 0));
    if (d) ttr[path] = d;
  }
  const fenceRuns = records.runs.filter((r) => r.path !== 'unfence');
  const refusals = countBy(fenceRuns, (r) => (r.outcome === 'refused' ? (r.reason ?? 'no reason') : null));
  const threshold = profile.nodeMonitorGraceSeconds + profile.notReadyThresholdSeconds;
  const text = [
    `soak ${records.world}, seed ${records.seed}, ${options.minutes} min, profile ${options.profile ?? 'shipped'}` +
      `${options.sabotage ? `, sabotage ${options.sabotage}` : ''}${options.baseline ? ', no fencer (baseline)' : ''}`,
    `  settings: node-monitor grace ${profile.nodeMonitorGraceSeconds} s, NotReady threshold ${profile.notReadyThresholdSeconds} s, health check every ${profile.healthCheckEverySeconds} s`,
    `faults: ${schedule.length} (${listed(countBy(schedule, (f) => f.kind))})`,
    `incidents: ${records.truth.filter((e) => e.action === 'cut' || e.action === 'crash').length}; databases on a failed node: ${recoveries.length}, Running elsewhere while it was down: ${recovered.length}`,
    `runs: ${listed(countBy(records.runs, (r) => `${r.path} ${r.outcome ?? 'unended'}`))}`,
    `refusals: ${listed(refusals)}`,
    `violations: ${violations.length === 0 ? 'none' : violations.length}`,
    ...violations.map(
      (v) => `  ${v.invariant} at ${new Date(v.t).toISOString()} (step ${v.step ?? '—'}): ${v.detail}`,
    ),
    ...(violations.length > 0 ? [`  replay: ${replayCommand(options)}`] : []),
    'failure → replacement Running, by path:',
    ...[...byPath].map(
      ([path, rs]) => `  ${path}: ${line(ttr[path] ?? null)}\n    parts (median): ${partsLine(rs)}`,
    ),
    ...(byPath.size === 0 ? ['  none'] : []),
    `  the operator's waits (grace + threshold): ${threshold} s`,
    'not recovered while down: ' +
      (recoveries
        .filter((r) => !r.whileDown)
        .map((r) => `${r.volume} on ${r.node} (step ${r.step}, ${r.path})`)
        .join('; ') || 'none'),
  ].join('\n');
  return { text, recoveries, ttr, refusals, violations };
}
