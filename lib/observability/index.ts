/**
 * The one place logs and metrics are made. Logs are structured JSON (Powertools Logger); metrics
 * are CloudWatch EMF in Lambda (Powertools Metrics) and a counter in memory elsewhere.
 */
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import { MetricUnit, Metrics as PowertoolsMetrics } from '@aws-lambda-powertools/metrics';
import type { AuditLog, Metrics } from '../ports/audit.js';

export const SERVICE_NAME = 'kube-fencer';
export const METRICS_NAMESPACE = 'KubeFencer';
/** The dimension every fencer metric carries beside Powertools' `service`: one deployment may fence several clusters. */
export const CLUSTER_DIMENSION = 'cluster';

/** What the use cases and the adapters log through: the audit log plus `debug` (the adapters' detail). */
export interface AppLogger extends AuditLog {
  debug(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

const SILENT: AppLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** The port's view of a Powertools logger. */
const appLogger = (logger: Logger): AppLogger => ({
  debug: (message, fields) => logger.debug(message, { ...fields }),
  info: (message, fields) => logger.info(message, { ...fields }),
  warn: (message, fields) => logger.warn(message, { ...fields }),
  error: (message, fields) => logger.error(message, { ...fields }),
});

/**
 * Powertools' logger, every level on stderr: Powertools writes INFO and DEBUG to stdout, which is
 * where the CLI's report goes (`--output json` must stay one JSON document).
 */
class StderrLogger extends Logger {
  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    process.stderr.write(`${JSON.stringify(log.getAttributes(), this.getJsonReplacer())}\n`);
  }
}

/**
 * A JSON logger; `silent` for the CLI's default text mode, where the report is the output; `stderr`
 * whenever stdout carries a report (the CLI), so no log line lands in it.
 */
export function createLogger(
  options: { readonly level?: string; readonly silent?: boolean; readonly stderr?: boolean } = {},
): AppLogger {
  if (options.silent) return SILENT;
  const settings = { serviceName: SERVICE_NAME, logLevel: (options.level ?? 'INFO') as 'INFO' };
  return appLogger(options.stderr ? new StderrLogger(settings) : new Logger(settings));
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

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/**
 * The port's view of Powertools metrics: each datum is its own EMF record (its dimensions differ from
 * the next one's), carrying the instance's default dimensions and `metadata` (searchable in the logs,
 * not a dimension: a run id as a dimension would make a metric per run).
 */
function portMetrics(metrics: PowertoolsMetrics, metadata: () => Readonly<Record<string, string>>): Metrics {
  const single = (
    name: string,
    unit: Unit,
    value: number,
    dimensions: Readonly<Record<string, string>> = {},
  ) => {
    const m = metrics.singleMetric();
    for (const [k, v] of Object.entries(dimensions)) m.addDimension(k, v);
    for (const [k, v] of Object.entries(metadata())) m.addMetadata(k, v);
    m.addMetric(name, unit, value);
  };
  return {
    count: (name, dimensions) => single(name, MetricUnit.Count, 1, dimensions),
    seconds: (name, value, dimensions) => single(name, MetricUnit.Seconds, value, dimensions),
    gauge: (name, value, dimensions) => single(name, MetricUnit.Count, value, dimensions),
  };
}

/** CloudWatch metrics through Powertools (EMF), without a cluster dimension: for benchmarks and tools. */
export function createCloudWatchMetrics(): Metrics {
  return portMetrics(
    new PowertoolsMetrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME }),
    () => ({}),
  );
}

/**
 * Logging and metrics of one Lambda function: Powertools' Logger and Metrics (for the middy
 * middlewares), the ports' views of them (for the use cases and adapters), and the keys of the current
 * invocation (run id, event id), which go into every log line and every metric's metadata.
 */
export interface Telemetry {
  readonly logger: Logger;
  readonly metrics: PowertoolsMetrics;
  readonly log: AppLogger;
  readonly counters: Metrics;
  /** Adds keys to every log line and metric of the current invocation; cleared by {@link Telemetry.endInvocation}. */
  scope(keys: Readonly<Record<string, string>>): void;
  endInvocation(): void;
}

/** The telemetry of a function serving `cluster`: the cluster is a key of every log line and a dimension of every metric. */
export function createTelemetry(options: { readonly cluster: string; readonly level?: string }): Telemetry {
  const logger = new Logger({
    serviceName: SERVICE_NAME,
    logLevel: (options.level ?? 'INFO') as 'INFO',
    persistentKeys: { cluster: options.cluster },
  });
  const metrics = new PowertoolsMetrics({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
    defaultDimensions: { [CLUSTER_DIMENSION]: options.cluster },
    logger,
  });
  let keys: Readonly<Record<string, string>> = {};
  return {
    logger,
    metrics,
    log: appLogger(logger),
    counters: portMetrics(metrics, () => keys),
    scope(more) {
      keys = { ...keys, ...more };
      logger.appendKeys(more);
    },
    endInvocation() {
      keys = {};
    },
  };
}
