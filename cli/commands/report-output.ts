import type { StepDecision } from '../../lib/app/fence/outcome.js';
import type { RunReport } from '../../lib/app/fence/report.js';
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

/**
 * A provider error that trying again cannot cure (IAM denies the call, the credentials are rejected:
 * the adapter marks it not retryable) ends the run at once and is reported as itself, in one line,
 * instead of being retried until the deadline.
 */
export function stopOnPermanentError(progress: { onRetry?: (error: Error) => void }): {
  readonly signal: AbortSignal;
  readonly onRetry: (error: Error) => void;
  /** The error that ended the run, if one did. */
  readonly error: () => Error | undefined;
} {
  const controller = new AbortController();
  let permanent: Error | undefined;
  return {
    signal: controller.signal,
    onRetry: (error) => {
      if (error.name === 'ProviderApiError' && (error as { retryable?: boolean }).retryable === false) {
        permanent ??= error;
        controller.abort(error);
        return;
      }
      progress.onRetry?.(error);
    },
    error: () => permanent,
  };
}

export function printReport(report: RunReport, output: OutputFormat): Promise<void> {
  return printResult(report, output, () => `\n${renderReport(report)}`);
}

/**
 * The exit code of a run's report. A run the provider's refusal ended (the adapter judged it permanent)
 * exits as that refusal would have from the access check: 7 for rejected credentials, 10 for any other.
 */
export function exitCodeFor(report: RunReport): number {
  if (report.reason === 'ProviderCredentialsRejected') return ExitCode.Credentials;
  if (report.reason === 'ProviderCallRejected') return ExitCode.Provider;
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
