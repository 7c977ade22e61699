/**
 * A machine's launch time at the precision its provider reports it. ECS reads start times to the minute,
 * EC2 to the second: a time known only to the minute is a window, not an instant. Each rule reads the
 * window the safe way round (SAFETY.md rules 1, 2, 6): a start that might fall after the decision stops a
 * fence, and only a start that surely falls after the fence may release a taint.
 */
import { ValidationError } from './errors.js';
import type { PowerEvidence } from './instance.js';
import { instant } from './time.js';

/** How finely a provider reports a launch time. */
export const LaunchTimePrecision = {
  Millisecond: 'millisecond',
  Second: 'second',
  Minute: 'minute',
} as const;
export type LaunchTimePrecision = (typeof LaunchTimePrecision)[keyof typeof LaunchTimePrecision];

const UNIT_MS: Readonly<Record<LaunchTimePrecision, number>> = {
  millisecond: 1,
  second: 1000,
  minute: 60_000,
};

/** The earliest and latest instant (ms, inclusive) a reported launch time can stand for. */
export interface LaunchWindow {
  readonly earliest: number;
  readonly latest: number;
}

/**
 * The window of a power observation's launch time, or null when it reports none. A time without a
 * precision is read to the millisecond (EC2's `LaunchTime` is exact to its second, and is reported as such).
 */
export function launchWindow(power: PowerEvidence): LaunchWindow | null {
  if (power.launchTime === undefined) return null;
  const precision = power.launchTimePrecision ?? LaunchTimePrecision.Millisecond;
  const unit = UNIT_MS[precision];
  if (unit === undefined) {
    throw new ValidationError(
      `launchTimePrecision is not one of ${Object.keys(UNIT_MS).join(', ')}: ${precision}`,
    );
  }
  const reported = instant(power.launchTime, 'launchTime');
  const earliest = reported - (((reported % unit) + unit) % unit);
  return { earliest, latest: earliest + unit - 1 };
}

/** The machine may have been started after `ms`: for anything that would stop a fence. */
export const possiblyLaunchedAfter = (power: PowerEvidence, ms: number): boolean => {
  const window = launchWindow(power);
  return window !== null && window.latest > ms;
};

/** The machine was surely started after `ms`: for anything that would release. */
export const surelyLaunchedAfter = (power: PowerEvidence, ms: number): boolean => {
  const window = launchWindow(power);
  return window !== null && window.earliest > ms;
};
