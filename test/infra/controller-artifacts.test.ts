/**
 * What ships beside the chart and cannot run here: deploy/Dockerfile (no container engine on these
 * machines) is held to the repository (what it copies exists, nothing it needs is left out of the build
 * context, what it runs is the CLI's command, its user and port are the chart's), and the Grafana dashboard
 * (deploy/grafana/kube-fencer.json) queries only metrics the controller exposes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/paths.js';
import { PrometheusMetrics } from '../../lib/observability/prometheus.js';

const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');
/** Grafana's reference to the dashboard's data source variable. */
const DATASOURCE_VARIABLE = ['$', '{datasource}'].join('');
/** The Dockerfile's base image argument, as its FROM lines name it. */
const NODE_IMAGE = ['$', '{NODE_IMAGE}'].join('');

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
const instructions = read('deploy/Dockerfile')
  .replace(/\\\n/g, ' ')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
  .map((line) => {
    const [keyword = '', ...rest] = line.trim().split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
const all = (keyword: string): string[] =>
  instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
const ignored = read('deploy/Dockerfile.dockerignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const isIgnored = (path: string): boolean =>
  ignored.some((pattern) => {
    const re = new RegExp(`^${pattern.replaceAll('.', '\\.').replaceAll('*', '[^/]*')}(/|$)`);
    return re.test(path);
  });
const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string>; files: string[] };
const values = load(read('deploy/helm/kube-fencer/values.yaml')) as {
  podSecurityContext: { runAsUser: number; runAsGroup: number };
  controller: { port: number };
};

describe('deploy/Dockerfile', () => {
  it('builds on node:22-slim', () => {
    expect(all('ARG')).toContain('NODE_IMAGE=node:22-slim');
    expect(all('FROM')).toEqual([`${NODE_IMAGE} AS package`, NODE_IMAGE]);
  });

  it('copies files that exist, and leaves nothing the package is built from out of its context', () => {
    const sources = all('COPY')
      .filter((args) => !args.startsWith('--from'))
      .flatMap((args) => args.split(/\s+/).slice(0, -1));

    expect(sources).toEqual(['package.json', 'package-lock.json', '.']);
    for (const source of sources) expect(existsSync(join(REPO_ROOT, source)), source).toBe(true);
    const needed = ['package.json', 'package-lock.json', 'cli', 'lib', 'infra', 'functions', 'tsconfig.json'];
    const packed = pkg.files.filter((f) => !f.startsWith('dist'));
    expect([...needed, ...packed].filter(isIgnored)).toEqual([]);
    expect(['node_modules', 'dist', '.git', 'kube-fencer-0.1.0.tgz'].every(isIgnored)).toBe(true);
  });

  it('runs the packed fencer as `fencer controller`, a command the built CLI has', () => {
    expect(all('ENTRYPOINT')).toEqual(['["fencer"]']);
    expect(all('CMD')).toEqual(['["controller"]']);
    expect(existsSync(join(REPO_ROOT, pkg.bin.fencer ?? 'missing'))).toBe(true);
    const help = execFileSync(
      process.execPath,
      [join(REPO_ROOT, 'bin', 'fencer.js'), 'controller', '--help'],
      {
        encoding: 'utf8',
      },
    );
    expect(help).toContain('--lease-name');
  });

  it('runs as the non-root user and listens on the port the chart expects', () => {
    expect(all('USER')).toEqual([
      `${values.podSecurityContext.runAsUser}:${values.podSecurityContext.runAsGroup}`,
    ]);
    expect(values.podSecurityContext.runAsUser).toBeGreaterThan(0);
    expect(all('EXPOSE')).toEqual([String(values.controller.port)]);
  });
});

interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: { readonly uid: string };
  readonly targets?: readonly { readonly expr: string }[];
}
const dashboard = JSON.parse(read('deploy/grafana/kube-fencer.json')) as {
  schemaVersion: number;
  templating: { list: { name: string; type: string; query: unknown }[] };
  panels: Panel[];
};
const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');
const exprs = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

/** The metric names an expression reads, a histogram's series (_bucket, _sum, _count) as the histogram. */
const metricsIn = (expr: string, histograms: ReadonlySet<string>): string[] =>
  [...expr.matchAll(/\b((?:kube_fencer|process|nodejs)_[a-z0-9_]+)/g)].map((m) => {
    const name = m[1] ?? '';
    const base = name.replace(/_(bucket|sum|count)$/, '');
    return histograms.has(base) ? base : name;
  });

describe('deploy/grafana/kube-fencer.json', () => {
  it('is a current dashboard whose every panel queries the chosen Prometheus data source', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(38);
    expect(dashboard.templating.list.find((v) => v.name === 'datasource')).toMatchObject({
      type: 'datasource',
      query: 'prometheus',
    });
    expect(queryPanels.filter((p) => p.datasource?.uid !== DATASOURCE_VARIABLE).map((p) => p.title)).toEqual(
      [],
    );
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
  });

  it('queries only metrics the controller exposes (the names of its Prometheus registry)', async () => {
    const metrics = await new PrometheusMetrics().registry.getMetricsAsJSON();
    const exposed = new Set(metrics.map((m) => m.name));
    const histograms = new Set(metrics.filter((m) => String(m.type) === 'histogram').map((m) => m.name));
    const used = new Set(exprs.flatMap((e) => metricsIn(e, histograms)));

    expect([...used].filter((name) => !exposed.has(name))).toEqual([]);
    expect(used.size).toBeGreaterThan(10);
  });

  it('shows runs by outcome, refusals by reason, fence duration p50/p95, time to recovery, runs in flight, the leader per pod, sweep findings and errors', () => {
    const wanted = [
      /sum by \(outcome\) \(increase\(kube_fencer_fencing_runs_total/,
      /sum by \(reason\) \(increase\(kube_fencer_fencing_refusals_total/,
      /histogram_quantile\(0\.5, sum by \(le\) \(rate\(kube_fencer_fence_duration_seconds_bucket/,
      /histogram_quantile\(0\.95, sum by \(le\) \(rate\(kube_fencer_fence_duration_seconds_bucket/,
      /histogram_quantile\(0\.95, sum by \(le\) \(rate\(kube_fencer_time_to_recovery_seconds_bucket/,
      /kube_fencer_runs_in_flight/,
      /^kube_fencer_leader\{/,
      /max by \(class\) \(kube_fencer_sweep_findings/,
      /kube_fencer_fencing_errors_total/,
      /kube_fencer_reconcile_errors_total/,
    ];

    expect(wanted.filter((re) => !exprs.some((e) => re.test(e))).map(String)).toEqual([]);
  });
});
