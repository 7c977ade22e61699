import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import type { TimingEntry } from '../../lab/timing-log.js';
import { timingReport } from './timing-report.js';

/** Where the lab's timing lines go during a run, and where the report is kept after it. */
export const LAB_TIMINGS_FILE = resolve('test-results/lab-timings.jsonl');
export const REPORT_FILE = resolve('test-results/timings.txt');

function readEntries(file: string): TimingEntry[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as TimingEntry];
      } catch {
        return [];
      }
    });
}

/**
 * Prints the timing report (`timing-report.ts`) after the run and keeps it in `test-results/`. The lab
 * code in the workers appends to `KUBE_FENCER_TIMINGS`, which this sets before any worker starts.
 */
export default class TimingReporter implements Reporter {
  private started = Date.now();
  /** When each file was handed to a worker and when it ended, in ms from the start of the run, by module id. */
  private readonly spans = new Map<string, { startMs: number; endMs?: number }>();

  onTestModuleQueued(module: TestModule): void {
    this.spans.set(module.moduleId, { startMs: Date.now() - this.started });
  }

  onTestModuleEnd(module: TestModule): void {
    const span = this.spans.get(module.moduleId);
    if (span) span.endMs = Date.now() - this.started;
  }

  onInit(): void {
    this.started = Date.now();
    mkdirSync(dirname(LAB_TIMINGS_FILE), { recursive: true });
    writeFileSync(LAB_TIMINGS_FILE, '');
    process.env.KUBE_FENCER_TIMINGS = LAB_TIMINGS_FILE;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = testModules.map((module) => ({
      project: module.project.name,
      file: module.relativeModuleId,
      tests: [...module.children.allTests()].length,
      ms: module.diagnostic().duration,
      ...this.spans.get(module.moduleId),
    }));
    const report = timingReport({
      wallMs: Date.now() - this.started,
      files,
      lab: readEntries(LAB_TIMINGS_FILE),
    });
    writeFileSync(REPORT_FILE, `${report}\n`);
    process.stdout.write(`\n${report}\n(kept in ${REPORT_FILE})\n`);
  }
}
