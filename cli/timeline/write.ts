/** `--timeline-out FILE`: the picture as SVG when FILE ends in .svg, else as an HTML page. */
import { writeFileSync } from 'node:fs';
import type { StepDecision } from '../../lib/app/fence/outcome.js';
import type { RunReport } from '../../lib/app/fence/report.js';
import type { FencerDeps } from '../../lib/app/shared/deps.js';
import type { IncidentTimeline } from '../../lib/app/timeline/model.js';
import { TimelineRecorder } from '../../lib/app/timeline/record.js';
import { renderTimelineHtml, renderTimelineSvg } from './svg.js';

export function writeTimeline(file: string, timeline: IncidentTimeline): void {
  writeFileSync(
    file,
    file.toLowerCase().endsWith('.svg') ? renderTimelineSvg(timeline) : renderTimelineHtml(timeline),
  );
}

/**
 * Records a run's picture beside its progress output: wraps `onStep` to read every lane after each
 * step, and writes the picture once the run is over.
 */
export function recordRun(
  deps: FencerDeps,
  node: string,
  file: string,
  handlers: { onStep?: (step: StepDecision) => void },
): { onStep: (step: StepDecision) => void; finish: (report: RunReport) => Promise<void> } {
  const recorder = new TimelineRecorder(deps, node);
  recorder.sample();
  return {
    onStep: (step) => {
      handlers.onStep?.(step);
      recorder.sample();
    },
    finish: async (report) => writeTimeline(file, await recorder.finish(report)),
  };
}
