/**
 * The logging the adapter needs; Powertools' `Logger` and `console` both fit. Structured fields go in
 * `extra`, so they stay searchable in JSON logs.
 */
export interface EcsFencerLogger {
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
}

/** Used when no logger is injected: the app layer owns logging (lib/observability). */
export const silentLogger: EcsFencerLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
};
