/**
 * The one place logs and metrics are made. Logs are structured JSON (Powertools Logger); metrics
 * are CloudWatch EMF in Lambda (Powertools Metrics) and a counter in memory elsewhere.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, Metrics as PowertoolsMetrics } from '@aws-lambda-powertools/metrics';
import type { AuditLog, Metrics } from '../ports/audit.js';

export const SERVICE_NAME = 'kube-fencer';
export const METRICS_NAMESPACE = 'KubeFencer';

/** A JSON logger; `silent` for the CLI's default text mode, where the report is the output. */
export function createLogger(options: { readonly level?: string; readonly silent?: boolean } = {}): AuditLog {
  if (options.silent) return { info() {}, warn() {}, error() {} };
  const logger = new Logger({ serviceName: SERVICE_NAME, logLevel: (options.level ?? 'INFO') as 'INFO' });
  return {
    info: (message, fields) => logger.info(message, { ...fields }),
    warn: (message, fields) => logger.warn(message, { ...fields }),
    error: (message, fields) => logger.error(message, { ...fields }),
  };
}

/** Counts in memory: for the CLI and tests, which report instead of publishing. */
export class InMemoryMetrics implements Metrics {
  readonly counts = new Map<string, number>();
  readonly durations: { name: string; value: number }[] = [];
  count(name: string, dimensions: Readonly<Record<string, string>> = {}): void {
    const key = [name, ...Object.entries(dimensions).map(([k, v]) => `${k}=${v}`)].join(' ');
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  seconds(name: string, value: number): void {
    this.durations.push({ name, value });
  }
  gauge(name: string, value: number, dimensions: Readonly<Record<string, string>> = {}): void {
    const key = [name, ...Object.entries(dimensions).map(([k, v]) => `${k}=${v}`)].join(' ');
    this.counts.set(key, (this.counts.get(key) ?? 0) + value);
  }
}

/** CloudWatch metrics through Powertools (EMF); call `flush()` at the end of an invocation. */
export function createCloudWatchMetrics(): Metrics & { flush(): void } {
  const metrics = new PowertoolsMetrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  const single = (
    name: string,
    unit: (typeof MetricUnit)[keyof typeof MetricUnit],
    value: number,
    dimensions: Readonly<Record<string, string>> = {},
  ) => {
    const m = metrics.singleMetric();
    for (const [k, v] of Object.entries(dimensions)) m.addDimension(k, v);
    m.addMetric(name, unit, value);
  };
  return {
    count: (name, dimensions) => single(name, MetricUnit.Count, 1, dimensions),
    seconds: (name, value, dimensions) => single(name, MetricUnit.Seconds, value, dimensions),
    gauge: (name, value, dimensions) => single(name, MetricUnit.Count, value, dimensions),
    flush: () => metrics.publishStoredMetrics(),
  };
}
