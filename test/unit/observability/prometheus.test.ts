/**
 * The controller's /metrics: every metric the use cases count reaches Prometheus under its documented
 * name and labels, as the exposition format requires (counters `_total`, durations `_seconds`), and the
 * controller's own series move as it reports.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PrometheusMetrics, USE_CASE_METRICS } from '../../../lib/observability/prometheus.js';

const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('Prometheus metrics', () => {
  it('names every use-case metric by Prometheus conventions', () => {
    for (const mapped of Object.values(USE_CASE_METRICS)) {
      expect(mapped.name).toMatch(/^[a-z][a-z0-9_]*$/);
      if (mapped.kind === 'counter') expect(mapped.name).toMatch(/_total$/);
      if (mapped.kind === 'histogram') expect(mapped.name).toMatch(/_seconds$/);
      if (mapped.kind === 'gauge') expect(mapped.name).not.toMatch(/_total$/);
    }
  });

  it('counts runs by outcome and refusals by reason, as the use cases report them', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.count('FencingRuns', { outcome: 'fenced' });
    metrics.count('FencingRuns', { outcome: 'fenced' });
    metrics.count('FencingRuns', { outcome: 'refused' });
    metrics.count('FencingReasons', { reason: 'LeaseFresh' });
    metrics.count('RunStartsFailed');
    const { body, contentType } = await metrics.exposition();
    expect(contentType).toMatch(/^text\/plain/);
    expect(sample(body, 'kube_fencer_fencing_runs_total{outcome="fenced"}')).toBe(2);
    expect(sample(body, 'kube_fencer_fencing_runs_total{outcome="refused"}')).toBe(1);
    expect(sample(body, 'kube_fencer_fencing_refusals_total{reason="LeaseFresh"}')).toBe(1);
    expect(sample(body, 'kube_fencer_run_starts_failed_total')).toBe(1);
    expect(body).toContain('# TYPE kube_fencer_fencing_runs_total counter');
  });

  it('sets gauges, adds rejected triggers, and observes durations into histograms', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.gauge('SweepFindings', 3, { class: 'VA_ON_NOTREADY_NODE' });
    metrics.gauge('SweepFindings', 1, { class: 'VA_ON_NOTREADY_NODE' });
    metrics.gauge('TriggersRejected', 4, { reason: 'OtherCluster' });
    metrics.gauge('TriggersRejected', 2, { reason: 'OtherCluster' });
    metrics.seconds('SweepDuration', 2.5);
    const { body } = await metrics.exposition();
    expect(sample(body, 'kube_fencer_sweep_findings{class="VA_ON_NOTREADY_NODE"}')).toBe(1);
    expect(sample(body, 'kube_fencer_triggers_rejected_total{reason="OtherCluster"}')).toBe(6);
    expect(sample(body, 'kube_fencer_sweep_duration_seconds_count')).toBe(1);
    expect(sample(body, 'kube_fencer_sweep_duration_seconds_sum')).toBe(2.5);
  });

  it('gives a metric no table knows a Prometheus name of the kind its use implies', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.count('SomethingNew', { whatKind: 'x' });
    const { body } = await metrics.exposition();
    expect(sample(body, 'kube_fencer_something_new_total{what_kind="x"}')).toBe(1);
  });

  it('reports leadership, runs in flight, fence durations and time to recovery', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    let { body } = await metrics.exposition();
    expect(sample(body, 'kube_fencer_leader')).toBe(0);
    metrics.leading(true);
    metrics.runsInFlight(2);
    metrics.runEnded('fenced', 42);
    metrics.recovered(95);
    metrics.reconcileError('sweep');
    ({ body } = await metrics.exposition());
    expect(sample(body, 'kube_fencer_leader')).toBe(1);
    expect(sample(body, 'kube_fencer_runs_in_flight')).toBe(2);
    expect(sample(body, 'kube_fencer_fence_duration_seconds_count{outcome="fenced"}')).toBe(1);
    expect(sample(body, 'kube_fencer_fence_duration_seconds_bucket{le="45",outcome="fenced"}')).toBe(1);
    expect(sample(body, 'kube_fencer_fence_duration_seconds_bucket{le="30",outcome="fenced"}')).toBe(0);
    expect(sample(body, 'kube_fencer_time_to_recovery_seconds_sum')).toBe(95);
    expect(sample(body, 'kube_fencer_reconcile_errors_total{loop="sweep"}')).toBe(1);
  });

  it('keeps counts exact over any sequence of runs (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('fenced', 'refused', 'failed', 'dry-run'), { maxLength: 50 }),
        async (outcomes) => {
          const metrics = new PrometheusMetrics({ processMetrics: false });
          for (const outcome of outcomes) metrics.count('FencingRuns', { outcome });
          const { body } = await metrics.exposition();
          for (const outcome of new Set(outcomes)) {
            expect(sample(body, `kube_fencer_fencing_runs_total{outcome="${outcome}"}`)).toBe(
              outcomes.filter((o) => o === outcome).length,
            );
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
