/**
 * The timing report printed at the end of every run and kept in `test-results/timings.txt`: wall time,
 * each project's file time, the slowest files, when each project ran and which files ended last, the
 * lab start-ups and the named waits (what the lab
 * suites spend their time on). Pure text building, so it is tested like any other function.
 */
import type { TimingEntry } from '../../lab/timing-log.js';

export interface FileTiming {
  readonly project: string;
  readonly file: string;
  readonly tests: number;
  readonly ms: number;
  /** When the file started and ended, in ms from the start of the run (absent: not recorded). */
  readonly startMs?: number;
  readonly endMs?: number;
}

export interface TimingInput {
  readonly wallMs: number;
  readonly files: readonly FileTiming[];
  readonly lab: readonly TimingEntry[];
  /** How many of the slowest files and wait kinds to list. */
  readonly top?: number;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const pad = (text: string, width: number): string => text.padStart(width);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** A wait's kind: its description with node names, numbers and ids folded, so repeats group together. */
export function waitKind(what: string): string {
  return what
    .replace(/\bnode-[a-z]\b/g, 'node-?')
    .replace(/\b(i|vol|d|pv|pvc)-[0-9a-z-]+/g, '$1-…')
    .replace(/\b\d+(\.\d+)?\b/g, 'N');
}

function projectLines(files: readonly FileTiming[]): string[] {
  const byProject = new Map<string, { ms: number; files: number; tests: number }>();
  for (const f of files) {
    const p = byProject.get(f.project) ?? { ms: 0, files: 0, tests: 0 };
    byProject.set(f.project, { ms: p.ms + f.ms, files: p.files + 1, tests: p.tests + f.tests });
  }
  return [...byProject.entries()]
    .sort(([, a], [, b]) => b.ms - a.ms)
    .map(([name, p]) => `  ${pad(seconds(p.ms), 9)}  ${name} (${p.files} files, ${p.tests} tests)`);
}

function labLines(lab: readonly TimingEntry[], top: number): string[] {
  const starts = lab.filter((e) => e.kind === 'lab-start');
  const waits = lab.filter((e) => e.kind === 'wait');
  const lines: string[] = [];
  const startMs = starts.map((e) => e.ms);
  lines.push(
    starts.length === 0
      ? 'lab start-ups: none'
      : `lab start-ups: ${starts.length}, ${seconds(startMs.reduce((a, b) => a + b, 0))} in all ` +
          `(median ${seconds(median(startMs))}, slowest ${seconds(Math.max(...startMs))}` +
          `${starts.some((e) => !e.ok) ? `, ${starts.filter((e) => !e.ok).length} failed` : ''})`,
  );
  const kinds = new Map<string, { ms: number; count: number; timedOut: number }>();
  for (const w of waits) {
    const key = waitKind(w.what);
    const k = kinds.get(key) ?? { ms: 0, count: 0, timedOut: 0 };
    kinds.set(key, { ms: k.ms + w.ms, count: k.count + 1, timedOut: k.timedOut + (w.ok ? 0 : 1) });
  }
  const waited = waits.reduce((sum, w) => sum + w.ms, 0);
  lines.push(`named waits: ${waits.length}, ${seconds(waited)} in all; the longest kinds:`);
  for (const [kind, k] of [...kinds.entries()].sort(([, a], [, b]) => b.ms - a.ms).slice(0, top)) {
    const timedOut = k.timedOut > 0 ? `, ${k.timedOut} timed out` : '';
    lines.push(`  ${pad(seconds(k.ms), 9)}  ×${k.count}  ${kind}${timedOut}`);
  }
  return lines;
}

/**
 * When each project's files ran (first start to last end, from the start of the run) and the last
 * files to end: whether projects overlap, and what the run's tail waits on.
 */
function scheduleLines(files: readonly FileTiming[]): string[] {
  const timed = files.filter(
    (f): f is FileTiming & { startMs: number; endMs: number } =>
      f.startMs !== undefined && f.endMs !== undefined,
  );
  if (timed.length === 0) return [];
  const spans = new Map<string, { from: number; to: number }>();
  for (const f of timed) {
    const span = spans.get(f.project) ?? { from: f.startMs, to: f.endMs };
    spans.set(f.project, { from: Math.min(span.from, f.startMs), to: Math.max(span.to, f.endMs) });
  }
  const window = (from: number, to: number) => `${(from / 1000).toFixed(1)}–${seconds(to)}`;
  const last = [...timed].sort((a, b) => b.endMs - a.endMs).slice(0, 3);
  return [
    `when each project ran: ${[...spans.entries()]
      .sort(([, a], [, b]) => a.from - b.from)
      .map(([name, span]) => `${name} ${window(span.from, span.to)}`)
      .join(', ')}`,
    `the last files to end: ${last.map((f) => `${f.file} (${window(f.startMs, f.endMs)})`).join(', ')}`,
  ];
}

export function timingReport(input: TimingInput): string {
  const top = input.top ?? 12;
  const fileMs = input.files.reduce((sum, f) => sum + f.ms, 0);
  const slowest = [...input.files].sort((a, b) => b.ms - a.ms).slice(0, top);
  return [
    `timing: wall ${seconds(input.wallMs)}, ${seconds(fileMs)} of test-file time ` +
      `(${input.wallMs > 0 ? (fileMs / input.wallMs).toFixed(1) : '0.0'}× in parallel)`,
    'by project:',
    ...projectLines(input.files),
    'slowest files:',
    ...slowest.map((f) => `  ${pad(seconds(f.ms), 9)}  ${f.project}  ${f.file} (${f.tests} tests)`),
    ...scheduleLines(input.files),
    ...labLines(input.lab, top),
  ].join('\n');
}
