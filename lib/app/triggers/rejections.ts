/**
 * Rejections aggregated per event: one event may name thousands of instances that are no node of this
 * cluster, and each is not worth a log line and a metric of its own. A tally keeps, per reason, how
 * many were rejected, the first detail and a sample of what was rejected; the event then writes one
 * log line and one metric datum per reason.
 */
import { RejectReason, type TriggerDeps, type TriggerOutcome } from './trigger-types.js';

/** Ids kept per reason as a sample, in the log line and the outcome. */
export const REJECTION_SAMPLE_SIZE = 10;
/** Longest detail kept in a log line or an outcome (a zod issue list can be long). */
const MAX_DETAIL = 512;

/** `text`, cut to `max` characters with an ellipsis. */
export const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

interface Entry {
  count: number;
  readonly detail: string;
  readonly sample: string[];
  readonly node?: string;
}

/** Where the rejected event came from, for the log line. */
export interface EventRef {
  readonly eventId?: string;
  readonly source?: string;
}

/** The rejections of one event, by reason. */
export class RejectionTally {
  readonly #byReason = new Map<RejectReason, Entry>();

  /** Records one rejected instance or node (`subject`), or the whole event (no subject). */
  add(reason: RejectReason, detail: string, subject?: { readonly id: string; readonly node?: string }): void {
    const entry = this.#byReason.get(reason);
    if (!entry) {
      this.#byReason.set(reason, {
        count: 1,
        detail: clip(detail, MAX_DETAIL),
        sample: subject ? [subject.id] : [],
        ...(subject?.node ? { node: subject.node } : {}),
      });
      return;
    }
    entry.count++;
    if (subject && entry.sample.length < REJECTION_SAMPLE_SIZE) entry.sample.push(subject.id);
  }

  get size(): number {
    return this.#byReason.size;
  }

  /** One outcome per reason: a single rejection as it was, many as a count with a sample. */
  outcomes(): TriggerOutcome[] {
    return [...this.#byReason].map(([reason, e]) => ({
      result: 'rejected' as const,
      reason,
      detail: e.count === 1 ? e.detail : `${e.count} rejected (${sampleText(e)}); first: ${e.detail}`,
      ...(e.count === 1 && e.node ? { node: e.node } : {}),
      ...(e.count > 1 ? { count: e.count } : {}),
    }));
  }

  /**
   * Writes the event's rejections: one log line, one `TriggersRejected` datum per reason (its value
   * the number rejected), and for the per-event cap one `FencingReasons` refusal, as the blast-radius
   * rule counts its refusals.
   */
  report(deps: Pick<TriggerDeps, 'log' | 'metrics'>, event: EventRef): void {
    if (this.#byReason.size === 0) return;
    const rejected: Record<string, { count: number; sample: readonly string[]; detail: string }> = {};
    for (const [reason, e] of this.#byReason) {
      rejected[reason] = { count: e.count, sample: e.sample, detail: e.detail };
      if (deps.metrics.gauge) deps.metrics.gauge('TriggersRejected', e.count, { reason });
      else deps.metrics.count('TriggersRejected', { reason });
    }
    if (this.#byReason.has(RejectReason.TooManyNodesInEvent)) {
      deps.metrics.count('FencingReasons', { reason: RejectReason.TooManyNodesInEvent });
    }
    deps.log.warn('trigger rejected', { ...event, rejected });
  }
}

const sampleText = (e: Entry): string =>
  e.sample.length === 0
    ? 'no sample'
    : `e.g. ${e.sample.join(', ')}${e.count > e.sample.length ? ', …' : ''}`;
