/**
 * The run function's input (what the triggers send through the Workflow port, plus the run's name) and
 * its answer: the report without its step list, small enough for Function Compute's destinations
 * (64 KB) and the task's record. An attempt that ran out of its own time throws, so that Function
 * Compute retries it and the next attempt continues the run.
 */
import * as z from 'zod';
import type { DurableRunReport } from '../../lib/app/fence/durable-run.js';
import { runInputSchema, runSealSchema } from '../../lib/config/step-state.js';

/** A run name as lib/app/triggers/start-run.ts makes them. */
export const fcRunInputSchema = runInputSchema.extend({
  runName: z.string().regex(/^[A-Za-z0-9_-]{1,77}$/, 'not a run name'),
  /** The run's checkpoint secret, made when the task was started; absent from tasks of older versions. */
  seal: runSealSchema.optional(),
});

/** The attempt ended on its own time, not the run's: Function Compute retries it. */
export class AttemptTimedOut extends Error {
  override readonly name = 'AttemptTimedOut';
}

export type RunResult = Omit<DurableRunReport, 'steps'> & { readonly steps: number };

/** The answer of an attempt that ended the run (or replayed its end). */
export function runResult(report: DurableRunReport): RunResult {
  if (report.reason === 'Timeout') {
    throw new AttemptTimedOut(
      `run ${report.runId} on ${report.node}: this attempt's time is up in phase ${report.phase}; the next attempt continues`,
    );
  }
  const { steps, evidence, downstream, ...rest } = report;
  return {
    ...rest,
    steps: steps.length,
    evidence: evidence.slice(0, 20).map((e) => e.slice(0, 300)),
    downstream: downstream.slice(0, 20).map((d) => d.slice(0, 300)),
  };
}
