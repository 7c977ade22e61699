import type { StepDecision } from '../../lib/app/outcome.js';
import type { RunReport } from '../../lib/app/report.js';
import { ExitCode } from '../exit-codes.js';
import type { OutputFormat } from '../options.js';
import { printResult } from '../print.js';
import { renderReport, stepLine } from '../render.js';

/** Text mode shows each step as it happens; JSON and YAML print only the final report. */
export function progressHandlers(output: OutputFormat): {
  onStep?: (step: StepDecision) => void;
  onRetry?: (error: Error) => void;
} {
  if (output !== 'text') return {};
  const started = new Date().toISOString();
  return {
    onStep: (step) => process.stdout.write(`${stepLine(started, step)}\n`),
    onRetry: (error) => process.stdout.write(`          retrying after ${error.name}: ${error.message}\n`),
  };
}

export function printReport(report: RunReport, output: OutputFormat): Promise<void> {
  return printResult(report, output, () => `\n${renderReport(report)}`);
}

export function exitCodeFor(report: RunReport): number {
  switch (report.outcome) {
    case 'fenced':
    case 'unfenced':
    case 'dry-run':
      return ExitCode.Ok;
    case 'refused':
      return ExitCode.Refused;
    default:
      return ExitCode.Failed;
  }
}
