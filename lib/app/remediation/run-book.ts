/**
 * {@link RunRecords} kept beside a workflow that only says whether it started a name: the runner tells
 * the book how each run ended (a RunReport is a RunEnd; a run that threw ended `failed` with the
 * error), and the book answers the remediation use case. A run handed over to another runner (the
 * controller stopped leading) is forgotten: the next runner's book knows nothing of it, and the
 * remediation starts it again under the same name, continuing from the node's records.
 */
import type { RunEnd, RunRecords, RunState } from '../../ports/run-records.js';

/** How a run that threw ended. */
export const endOfError = (error: Error, finishedAt: Date): RunEnd => ({
  outcome: 'failed',
  reason: 'StepError',
  message: `${error.name}: ${error.message}`,
  finishedAt: finishedAt.toISOString(),
});

/** Whole reports are not kept: a book of many runs keeps four short fields of each. */
const endOf = (end: RunEnd): RunEnd => ({
  outcome: end.outcome,
  reason: end.reason,
  message: end.message.slice(0, 1024),
  finishedAt: end.finishedAt,
});

export class RunBook implements RunRecords {
  readonly #started: (name: string) => boolean;
  readonly #ends = new Map<string, RunEnd>();

  /** `started`: whether the workflow started a run of that name (and still remembers it). */
  constructor(started: (name: string) => boolean) {
    this.#started = started;
  }

  /** Records how run `name` ended; null: it was handed over, not ended (forgotten here). */
  ended(name: string, end: RunEnd | null): void {
    if (end === null) this.#ends.delete(name);
    else this.#ends.set(name, endOf(end));
  }

  async state(name: string): Promise<RunState> {
    const end = this.#ends.get(name);
    if (end) return { kind: 'ended', end };
    return this.#started(name) ? { kind: 'running' } : { kind: 'unknown' };
  }
}
