/**
 * Time arithmetic for the domain. Every timestamp crosses a JSON boundary as ISO 8601; an unreadable
 * one would silently compare as "not fresh", which is unsafe, so it is an error instead (SAFETY.md rule 10).
 */
import { ValidationError } from './errors.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch for an ISO 8601 time; throws `ValidationError` for anything else. */
export function instant(iso: string, field: string): number {
  const ms = ISO_8601.test(iso) ? Date.parse(iso) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new ValidationError(`${field} is not an ISO 8601 time with a zone: ${JSON.stringify(iso)}`);
  }
  return ms;
}

/** ISO 8601 (UTC) for milliseconds since the epoch. */
export const isoAt = (ms: number): string => new Date(ms).toISOString();

/** Whole seconds from `fromMs` to `toMs`, for messages. */
export const secondsFrom = (fromMs: number, toMs: number): number => Math.round((toMs - fromMs) / 1000);

/**
 * How long before the moment `toMs` the instant `fromMs` was, for messages: "12s before" or, when it is
 * later (a server `Date` is to the second, or the writer's clock runs ahead), "1s after".
 */
export function relativeTo(fromMs: number, toMs: number): string {
  const seconds = secondsFrom(fromMs, toMs);
  return seconds >= 0 ? `${seconds}s before` : `${-seconds}s after`;
}
