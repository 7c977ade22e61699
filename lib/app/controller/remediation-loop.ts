/**
 * The NHC remediations (lib/app/remediation/) in a leadership term: reconciled at the term's start, on
 * every change to a remediation object, when one of the term's runs ends, when the reconcile asks to
 * look again (a run going, an un-fence waiting), and at least every interval. One reconcile at a time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RemediationCodec, RemediationStore } from '../../ports/remediations.js';
import { reconcileRemediations } from '../remediation/reconcile.js';
import { endOfError, RunBook } from '../remediation/run-book.js';
import type { FencerDeps } from '../shared/deps.js';
import type { TriggerDeps, TriggerSettings } from '../triggers/trigger-types.js';
import type { EndedRun } from './in-process-workflow.js';
import { Wake } from './wake.js';

/** The longest pause between two reconciles. */
const INTERVAL_MS = 30_000;
/** Pause after a reconcile that failed as a whole (the CRDs missing, the API server away). */
const AFTER_ERROR_MS = 5_000;

export interface RemediationLoopDeps {
  readonly triggers: TriggerDeps;
  readonly fencer: FencerDeps;
  readonly store: RemediationStore;
  readonly codec: RemediationCodec;
  /** Whether the term's workflow started a run of that name. */
  readonly started: (name: string) => boolean;
  readonly onError: (error: unknown) => void;
}

export class RemediationLoop {
  readonly #deps: RemediationLoopDeps;
  readonly #settings: TriggerSettings;
  readonly #book: RunBook;
  readonly #wake = new Wake();
  #passes = 0;

  constructor(deps: RemediationLoopDeps, settings: TriggerSettings) {
    this.#deps = deps;
    this.#settings = settings;
    this.#book = new RunBook(deps.started);
  }

  /** A run of the term ended (or was handed over): its remediation is looked at again now. */
  runEnded(ended: EndedRun): void {
    const end = ended.handedOver
      ? null
      : (ended.report ?? endOfError(ended.error ?? new Error('the run ended without a report'), new Date()));
    this.#book.ended(ended.name, end);
    this.#wake.wake();
  }

  /** Reconciles until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let waitMs = INTERVAL_MS;
      try {
        this.#passes += 1;
        const report = await reconcileRemediations(
          {
            triggers: this.#deps.triggers,
            fencer: this.#deps.fencer,
            remediations: this.#deps.store,
            codec: this.#deps.codec,
            runs: this.#book,
          },
          this.#settings,
          `remediation-${this.#passes}`,
        );
        if (report.requeueAfterSeconds !== undefined)
          waitMs = Math.min(waitMs, report.requeueAfterSeconds * 1000);
      } catch (error) {
        this.#deps.onError(error);
        await sleep(AFTER_ERROR_MS, undefined, { signal }).catch(() => {});
        continue;
      }
      await this.#pause(waitMs, signal);
    }
  }

  /** Until a remediation changes, a run ends, `ms` pass, or the term ends. */
  async #pause(ms: number, signal: AbortSignal): Promise<void> {
    const pause = new AbortController();
    const both = AbortSignal.any([signal, pause.signal]);
    await Promise.race([
      this.#deps.store.waitForChange(ms, both).catch(() => 'changed' as const),
      this.#wake.sleep(ms, both),
    ]);
    pause.abort();
  }
}
