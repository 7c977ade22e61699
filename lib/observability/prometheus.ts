/**
 * Metrics for Prometheus (`fencer controller`'s /metrics): the same counts the Lambda (CloudWatch EMF) and
 * Function Compute (SLS) deployments publish, under Prometheus names (snake case, `kube_fencer_`
 * prefix, `_total` on counters, `_seconds` on durations), plus the controller's own: leadership, runs in
 * flight, fence durations and time to recovery. Node.js process metrics come with them.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics } from '../ports/audit.js';
import type { ControllerMetrics } from '../ports/controller-metrics.js';

const PREFIX = 'kube_fencer_';

type Kind = 'counter' | 'gauge' | 'histogram';

/** A use-case metric's Prometheus name, kind and labels. */
interface Mapped {
  readonly name: string;
  readonly kind: Kind;
  readonly labels: readonly string[];
  readonly help: string;
}

/** The use cases' metric names (lib/app) and what each is in Prometheus. */
export const USE_CASE_METRICS: Readonly<Record<string, Mapped>> = {
  FencingRuns: {
    name: 'fencing_runs_total',
    kind: 'counter',
    labels: ['outcome'],
    help: 'Fencing runs ended, by outcome.',
  },
  FencingReasons: {
    name: 'fencing_refusals_total',
    kind: 'counter',
    labels: ['reason'],
    help: 'Refusals and waits of fencing runs and triggers, by reason (SAFETY.md).',
  },
  FencingErrors: {
    name: 'fencing_errors_total',
    kind: 'counter',
    labels: ['error'],
    help: 'Errors fencing steps met (Kubernetes, provider, storage), by error name.',
  },
  RunsStarted: {
    name: 'runs_started_total',
    kind: 'counter',
    labels: ['source'],
    help: 'Fencing runs started, by trigger source.',
  },
  TriggersDuplicate: {
    name: 'triggers_duplicate_total',
    kind: 'counter',
    labels: ['source'],
    help: 'Triggers for a run that already exists.',
  },
  RunStartsFailed: {
    name: 'run_starts_failed_total',
    kind: 'counter',
    labels: [],
    help: 'Runs that could not be started.',
  },
  TriggersRejected: {
    name: 'triggers_rejected_total',
    kind: 'counter',
    labels: ['reason'],
    help: 'Nodes or instances a trigger started nothing for, by reason.',
  },
  SweepFindings: {
    name: 'sweep_findings',
    kind: 'gauge',
    labels: ['class'],
    help: 'Findings of the last sweep, by class.',
  },
  SweepDuration: {
    name: 'sweep_duration_seconds',
    kind: 'histogram',
    labels: [],
    help: 'How long sweeps took.',
  },
  SweepCrossCheckFailures: {
    name: 'sweep_cross_check_failures',
    kind: 'gauge',
    labels: [],
    help: 'Provider cross-checks the last sweep could not make.',
  },
  StorageFencesAtRisk: {
    name: 'storage_fences_at_risk',
    kind: 'gauge',
    labels: [],
    help: 'Standing storage fences the last sweep found lost, failed or unchecked.',
  },
  SweepRemediations: {
    name: 'sweep_remediations_total',
    kind: 'counter',
    labels: ['class', 'status'],
    help: 'Remediations a sweep tried, by finding class and result.',
  },
  FenceUpkeep: {
    name: 'fence_upkeep_total',
    kind: 'counter',
    labels: ['verdict', 'action'],
    help: 'Standing storage fences checked by sweeps, by verdict and action.',
  },
};

/** Buckets for runs and recoveries: seconds to a quarter hour. */
const RUN_BUCKETS = [5, 10, 20, 30, 45, 60, 90, 120, 180, 300, 600, 900];

/** A metric name no table knows, in Prometheus form (`FooBar` -> `foo_bar`). */
const snake = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toLowerCase();

type AnyMetric = Counter<string> | Gauge<string> | Histogram<string>;

export class PrometheusMetrics implements Metrics, ControllerMetrics {
  readonly registry = new Registry();
  readonly #metrics = new Map<string, { metric: AnyMetric; kind: Kind; labels: readonly string[] }>();
  readonly #leader: Gauge<string>;
  readonly #inFlight: Gauge<string>;
  readonly #runDuration: Histogram<string>;
  readonly #recovery: Histogram<string>;
  readonly #reconcileErrors: Counter<string>;

  constructor(options: { readonly processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    for (const mapped of Object.values(USE_CASE_METRICS)) this.#define(mapped);
    this.#leader = this.#gauge('leader', 'Whether this replica leads (1) or stands by (0).', []);
    this.#inFlight = this.#gauge('runs_in_flight', 'Fencing runs going in this replica.', []);
    this.#runDuration = new Histogram({
      name: `${PREFIX}fence_duration_seconds`,
      help: 'How long fencing runs took, start to end, by outcome.',
      labelNames: ['outcome'],
      buckets: RUN_BUCKETS,
      registers: [this.registry],
    });
    this.#recovery = new Histogram({
      name: `${PREFIX}time_to_recovery_seconds`,
      help: "Seconds from a node's NotReady to its fence's end (its volumes released).",
      buckets: RUN_BUCKETS,
      registers: [this.registry],
    });
    this.#reconcileErrors = new Counter({
      name: `${PREFIX}reconcile_errors_total`,
      help: "Failed passes of the controller's loops, by loop.",
      labelNames: ['loop'],
      registers: [this.registry],
    });
    this.#leader.set(0);
    this.#inFlight.set(0);
  }

  /** The exposition text for /metrics. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  count(name: string, dimensions: Readonly<Record<string, string>> = {}): void {
    this.#apply(name, 'counter', 1, dimensions);
  }

  seconds(name: string, value: number, dimensions: Readonly<Record<string, string>> = {}): void {
    this.#apply(name, 'histogram', value, dimensions);
  }

  gauge(name: string, value: number, dimensions: Readonly<Record<string, string>> = {}): void {
    this.#apply(name, 'gauge', value, dimensions);
  }

  leading(leading: boolean): void {
    this.#leader.set(leading ? 1 : 0);
  }

  runsInFlight(count: number): void {
    this.#inFlight.set(count);
  }

  runEnded(outcome: string, seconds: number): void {
    this.#runDuration.observe({ outcome }, seconds);
  }

  recovered(seconds: number): void {
    this.#recovery.observe(seconds);
  }

  reconcileError(loop: string): void {
    this.#reconcileErrors.inc({ loop });
  }

  #gauge(name: string, help: string, labels: readonly string[]): Gauge<string> {
    return new Gauge({ name: `${PREFIX}${name}`, help, labelNames: [...labels], registers: [this.registry] });
  }

  #define(mapped: Mapped): { metric: AnyMetric; kind: Kind; labels: readonly string[] } {
    const common = {
      name: `${PREFIX}${mapped.name}`,
      help: mapped.help,
      labelNames: [...mapped.labels],
      registers: [this.registry],
    };
    const metric =
      mapped.kind === 'counter'
        ? new Counter(common)
        : mapped.kind === 'gauge'
          ? new Gauge(common)
          : new Histogram({ ...common, buckets: RUN_BUCKETS });
    const entry = { metric, kind: mapped.kind, labels: mapped.labels };
    this.#metrics.set(common.name, entry);
    return entry;
  }

  /** A use case's datum on its Prometheus metric; an unknown name gets one of the kind the call implies. */
  #apply(name: string, kind: Kind, value: number, dimensions: Readonly<Record<string, string>>): void {
    const known = USE_CASE_METRICS[name];
    const fallbackName = `${snake(name)}${kind === 'counter' && !name.endsWith('Total') ? '_total' : ''}`;
    const fullName = `${PREFIX}${known?.name ?? fallbackName}`;
    const entry =
      this.#metrics.get(fullName) ??
      this.#define({ name: fallbackName, kind, labels: Object.keys(dimensions).map(snake), help: name });
    const labels = Object.fromEntries(
      entry.labels.map((label) => [label, dimensions[label] ?? dimensions[camel(label)] ?? '']),
    );
    if (entry.metric instanceof Counter) entry.metric.inc(labels, value);
    else if (entry.metric instanceof Gauge) entry.metric.set(labels, value);
    else entry.metric.observe(labels, value);
  }
}

const camel = (label: string): string => label.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
