/**
 * Logs and metrics of the Function Compute functions. Function Compute ships a function's stdout to
 * its SLS logstore line by line, so both are JSON lines there: a log line carries the invocation's
 * request id and the function's name; a metric is a line with `metric` and `value`, which the stack's
 * SLS index (infra-alicloud/fencer-stack.ts) and alerts (infra-alicloud/constructs/alerts.ts) count.
 * No agent, no SDK.
 */
import type { Metrics } from '../ports/audit.js';
// A type only: the Powertools logger behind index.ts never reaches a Function Compute bundle.
import type { AppLogger } from './index.js';

/** The service name of every line: index.ts's SERVICE_NAME, not imported, so Powertools stays out of the bundles. */
const SERVICE_NAME = 'kube-fencer';

const LEVELS = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40 } as const;
export type FcLogLevel = keyof typeof LEVELS;

/** The keys every line of one invocation carries. */
export interface FcLogContext {
  requestId?: string;
  functionName?: string;
  cluster?: string;
  [key: string]: string | undefined;
}

/** A JSON-lines logger (and metrics as log lines) whose context is set per invocation. */
export interface FcTelemetry {
  /** The log of the use cases and of the adapters (their debug lines too, below the INFO threshold by default). */
  readonly log: AppLogger;
  readonly metrics: Metrics;
  /** Replaces the per-invocation keys (call at the start of every invocation). */
  setContext(context: FcLogContext): void;
}

/** Errors as plain JSON (name, message, code), never `{}`. */
const jsonSafe = (fields: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(fields ?? {}).map(([k, v]) => [
      k,
      v instanceof Error ? { name: v.name, message: v.message, code: (v as { code?: unknown }).code } : v,
    ]),
  );

/** Creates the telemetry of one function instance; `write` is stdout unless a test captures it. */
export function createFcTelemetry(
  options: { readonly level?: FcLogLevel; readonly write?: (line: string) => void } = {},
): FcTelemetry {
  const threshold = LEVELS[options.level ?? 'INFO'];
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  let context: FcLogContext = {};
  const line = (level: FcLogLevel, message: string, fields?: Readonly<Record<string, unknown>>) => {
    if (LEVELS[level] < threshold) return;
    write(
      JSON.stringify({
        time: new Date().toISOString(),
        level,
        service: SERVICE_NAME,
        ...context,
        message,
        ...jsonSafe(fields),
      }),
    );
  };
  const metric = (name: string, value: number, unit: string, dimensions?: Readonly<Record<string, string>>) =>
    line('INFO', 'metric', { metric: name, value, unit, ...dimensions });
  return {
    log: {
      debug: (message, fields) => line('DEBUG', message, fields),
      info: (message, fields) => line('INFO', message, fields),
      warn: (message, fields) => line('WARN', message, fields),
      error: (message, fields) => line('ERROR', message, fields),
    },
    metrics: {
      count: (name, dimensions) => metric(name, 1, 'Count', dimensions),
      seconds: (name, value, dimensions) => metric(name, value, 'Seconds', dimensions),
      gauge: (name, value, dimensions) => metric(name, value, 'Count', dimensions),
    },
    setContext(next) {
      context = Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined)) as FcLogContext;
    },
  };
}
