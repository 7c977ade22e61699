/**
 * The automated path a soak runs, whichever cloud it is deployed on: the scheduled health check, the
 * event router fed by the provider's event bus, and the runs they start. The soak only delivers events
 * and reads how the runs ended; what runs them is the deployment's own code (aws-path.ts,
 * alibaba-path.ts).
 */
import type { Plugin } from 'esbuild';
import type { LabNode } from '../lab.js';
import type { RunEnd } from './records.js';

/** How the automated path is deployed: the settings an operator chooses, as the stack takes them. */
export interface PathSettings {
  /** The fence request every trigger sends (the stack's `requestDefaults`). */
  readonly requestDefaults: Readonly<Record<string, unknown>>;
  /** How long a node is NotReady before the health check fences it. */
  readonly notReadyThresholdSeconds: number;
  /** How often the health check runs (the schedule in the stack). */
  readonly healthCheckEverySeconds: number;
  /** Plugins for the functions' bundles: none as deployed, a sabotage to show the checker finds it. */
  readonly plugins: readonly Plugin[];
  /** Where the bundles are written. */
  readonly dir: string;
  /** A trigger that failed (a health check that threw, an event the router rejected): the soak says it. */
  readonly onError: (what: string, error: unknown) => void;
}

/** An automated run, as its runner (the state machine, Function Compute) saw it. */
export interface AutomatedRun extends RunEnd {
  /** What started it: the health check's schedule or a provider's event. */
  readonly source: string;
}

export interface SoakPath {
  /** The provider's event bus: `node`'s machine was seen in `state` (a powered-off state). */
  deliverStateChange(node: LabNode, state: string): Promise<void>;
  /** Delivers the last event again, late (an at-least-once bus). Nothing when none was delivered. */
  redeliver(): Promise<void>;
  /** Every run so far; `endedAt` null while it runs. */
  runs(): readonly AutomatedRun[];
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;

/** How a run ended, from its final output (the step's report, or the run function's answer). */
export function runEndOf(output: Json | undefined, failure?: string): Pick<RunEnd, 'outcome' | 'reason'> {
  if (failure !== undefined) return { outcome: 'failed', reason: failure || 'the run failed' };
  // A run that ended early answers its report; one that went through the loop, its last decision.
  const decision = (output?.decision ?? output) as Json | undefined;
  const outcome = typeof decision?.outcome === 'string' ? decision.outcome : null;
  const reason = typeof decision?.reason === 'string' ? decision.reason : null;
  return { outcome, reason };
}

/**
 * Runs `tick` every `seconds`, one at a time (a schedule invokes its function with concurrency 1);
 * a tick that fails goes to `onError`.
 */
export function schedule(
  seconds: number,
  tick: (n: number) => Promise<unknown>,
  onError: (error: unknown) => void,
): () => void {
  let ticks = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    ticks += 1;
    tick(ticks)
      .catch(onError)
      .finally(() => {
        busy = false;
      });
  }, seconds * 1000);
  return () => clearInterval(timer);
}
