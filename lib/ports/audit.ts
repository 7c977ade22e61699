/** Structured logging for the use cases; implemented in lib/observability (Powertools logger). */
export interface AuditLog {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** Counters for runs, refusals by reason, and durations; implemented in lib/observability. */
export interface Metrics {
  count(name: string, dimensions?: Readonly<Record<string, string>>): void;
  seconds(name: string, value: number, dimensions?: Readonly<Record<string, string>>): void;
  /** A count observed at once (e.g. findings of one class in a sweep). Optional: callers fall back to `count`. */
  gauge?(name: string, value: number, dimensions?: Readonly<Record<string, string>>): void;
}

/** The time. Injected so tests and replays control it. */
export interface Clock {
  now(): Date;
}
