/**
 * The lab's side of the test run's timing report: when `KUBE_FENCER_TIMINGS` names a file, every lab
 * start-up and every named wait appends one JSON line to it (what, how long, whether it timed out).
 * The report groups them (`test/support/timing-report.ts`); with the variable unset this does nothing.
 */
import { appendFileSync } from 'node:fs';

export type TimingKind = 'lab-start' | 'wait';

export interface TimingEntry {
  readonly kind: TimingKind;
  readonly what: string;
  readonly ms: number;
  readonly ok: boolean;
}

export function recordTiming(kind: TimingKind, what: string, ms: number, ok = true): void {
  const file = process.env.KUBE_FENCER_TIMINGS;
  if (!file) return;
  const entry: TimingEntry = { kind, what, ms: Math.round(ms), ok };
  try {
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  } catch {
    // A report that cannot be written must not fail the lab.
  }
}
