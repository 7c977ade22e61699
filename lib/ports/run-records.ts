/**
 * What a runner remembers of the runs it started, by name: whether one is still going and how it
 * ended. The Workflow port (./workflow.ts) only starts runs; a use case that reports a run's outcome
 * on an object of its own (the NHC remediation, lib/app/remediation/) asks this one. Served by the
 * controller's in-process workflow, which runs `runFence` (lib/app/fence/run-loop.ts) per started run
 * and keeps its report; a RunReport is a {@link RunEnd}.
 */

/** How a run ended: its outcome (`fenced`, `refused`, `failed`, `dry-run`), reason code and sentence. */
export interface RunEnd {
  readonly outcome: string;
  /** A reason code of lib/domain/reasons.ts, `Timeout`, or null. */
  readonly reason: string | null;
  readonly message: string;
  readonly finishedAt: string;
}

/** What the runner knows of one run. `unknown`: never started here, or forgotten (a new process). */
export type RunState =
  | { readonly kind: 'running' }
  | { readonly kind: 'ended'; readonly end: RunEnd }
  | { readonly kind: 'unknown' };

export interface RunRecords {
  state(name: string): Promise<RunState>;
}
