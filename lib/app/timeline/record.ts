/**
 * The picture of a fence run, recorded while it runs: every lane read when the run starts, after each
 * step and when it ends (one reading at a time, behind the run, never in its way), the steps as marks,
 * and the evidence the run acted on (the proof of off, the taint) at the moments the report gives.
 */

import type { StepDecision } from '../fence/outcome.js';
import type { RunReport } from '../fence/report.js';
import type { TimelineDeps } from './deps.js';
import { type IncidentTimeline, type LaneKey, lanesFromSamples, type Mark, type Sample } from './model.js';
import { sampleNode } from './sample.js';

const stepLabel = (step: StepDecision): string =>
  `${step.phase}${step.reason ? ` [${step.reason}]` : ''}: ${step.actionResult ?? step.message}`;

/** The marks of a run: each step, and the evidence of the proof of off and of the taint. */
export function runMarks(report: RunReport): Mark[] {
  const marks: Mark[] = report.steps.map((step) => ({ at: step.at, kind: 'step', label: stepLabel(step) }));
  const proof = report.proofOfOff;
  if (proof) {
    const reason = proof.stateReason ? `, ${proof.stateReason}` : '';
    marks.push({
      at: proof.observedAt,
      kind: 'evidence',
      lane: 'instance',
      label: `proof of off: ${proof.instanceId} ${proof.providerState ?? proof.state}${reason}`,
    });
  }
  if (report.milestones.taintedAt) {
    marks.push({
      at: report.milestones.taintedAt,
      kind: 'evidence',
      lane: 'node',
      label: 'tainted node.kubernetes.io/out-of-service=nodeshutdown:NoExecute',
    });
  }
  return marks;
}

/** The title line under the picture's heading. */
export const runSubtitle = (report: RunReport): string =>
  `${report.kind} run ${report.runId}: ${report.outcome}${report.reason ? ` [${report.reason}]` : ''} after ${report.durationSeconds.toFixed(1)} s`;

export class TimelineRecorder {
  readonly #deps: TimelineDeps;
  readonly #node: string;
  readonly #samples: Sample[] = [];
  #instanceId: string | undefined;
  /** Readings are taken one after another, so a slow one never overlaps the next. */
  #queue: Promise<void> = Promise.resolve();

  constructor(deps: TimelineDeps, node: string) {
    this.#deps = deps;
    this.#node = node;
  }

  /** Queues a reading of every lane. */
  sample(): void {
    this.#queue = this.#queue.then(async () => {
      const sample = await sampleNode(this.#deps, this.#node);
      this.#instanceId ??= sample.instanceId;
      this.#samples.push(sample);
    });
  }

  /** Waits for the queued readings, takes a last one, and builds the picture of the run. */
  async finish(report: RunReport): Promise<IncidentTimeline> {
    this.sample();
    await this.#queue;
    const to = this.#samples.at(-1)?.at ?? report.finishedAt;
    const subjects: Partial<Record<LaneKey, string>> = {
      node: this.#node,
      ...(this.#instanceId ? { instance: this.#instanceId } : {}),
    };
    return {
      title: `${report.kind === 'fence' ? 'Fencing' : 'Un-fencing'} ${report.node} (cluster ${report.cluster})`,
      subtitle: runSubtitle(report),
      from: this.#samples[0]?.at ?? report.startedAt,
      to,
      lanes: lanesFromSamples(this.#samples, to, subjects),
      marks: runMarks(report),
    };
  }
}
