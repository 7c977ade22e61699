/**
 * The sweep use case: observe the cluster (paginated), classify with the pure rule table, cross-check
 * the findings with the providers (batched, bounded), conclude the next safe action, remediate only what
 * SAFETY.md rule 5 allows and only when asked, keep standing storage fences from lapsing (rule 6), then
 * report, log and count per class.
 */
import { SWEEP_CLASSES, type SweepClass } from '../../domain/sweep/classes.js';
import { classify, conclude } from '../../domain/sweep/classify.js';
import { crossCheckFault } from '../../domain/sweep/cross-check.js';
import type { Finding } from '../../domain/sweep/finding.js';
import { indexSnapshot } from '../../domain/sweep/sweep-index.js';
import type { SweepDeps } from './deps.js';
import { keepFencesAlive } from './fence-upkeep.js';
import { gatherSnapshot } from './gather.js';
import { crossCheckFindings } from './provider-check.js';
import { type FencingStarter, remediate } from './remediate.js';
import { SweepMode as Mode, type SweepMode, type SweepReport, type SweepRequest } from './report.js';

/** Cross-check faults quoted in the report; the count covers all. */
const MAX_REPORTED_FAULTS = 20;

/** Findings logged one by one; past this, one summary line (a sick cluster must not flood the logs). */
const MAX_LOGGED_FINDINGS = 200;

const modeOf = (request: SweepRequest): SweepMode =>
  !request.remediate ? Mode.ReportOnly : request.dryRun ? Mode.RemediateDryRun : Mode.Remediate;

function countByClass(findings: readonly Finding[]): Record<SweepClass, number> {
  const counts = Object.fromEntries(SWEEP_CLASSES.map((c) => [c, 0])) as Record<SweepClass, number>;
  for (const f of findings) counts[f.class]++;
  return counts;
}

function record(deps: SweepDeps, report: SweepReport): void {
  for (const [cls, n] of Object.entries(report.counts)) {
    if (deps.metrics.gauge) deps.metrics.gauge('SweepFindings', n, { class: cls });
    else for (let i = 0; i < n; i++) deps.metrics.count('SweepFindings', { class: cls });
  }
  deps.metrics.seconds('SweepDuration', report.durationMs / 1000);
  // Zero included, so an alarm can watch it: a sweep whose provider checks failed is not a clean sweep.
  if (deps.metrics.gauge) deps.metrics.gauge('SweepCrossCheckFailures', report.crossCheck.failed, {});
  else for (let i = 0; i < report.crossCheck.failed; i++) deps.metrics.count('SweepCrossCheckFailures');
  // Zero included too: a standing fence whose entries are gone or could not be kept is an alarm of its own.
  const fencesAtRisk = report.fences.lost + report.fences.failed + report.fences.unchecked;
  if (deps.metrics.gauge) deps.metrics.gauge('StorageFencesAtRisk', fencesAtRisk, {});
  else for (let i = 0; i < fencesAtRisk; i++) deps.metrics.count('StorageFencesAtRisk');
  if (report.crossCheck.failed > 0)
    deps.log.warn('sweep cross-check failed', {
      failed: report.crossCheck.failed,
      sample: report.crossCheck.faults,
    });
  for (const f of report.findings.slice(0, MAX_LOGGED_FINDINGS)) {
    deps.log.warn('sweep finding', {
      id: f.id,
      class: f.class,
      summary: f.summary,
      next: f.nextAction.description,
    });
  }
  const { findings: _, ...summary } = report;
  deps.log.info('sweep finished', { ...summary, findings: report.findings.length });
}

/** One sweep. `starter` starts fencing runs for VA_ON_NOTREADY_NODE findings when remediating. */
export async function sweep(
  deps: SweepDeps,
  request: SweepRequest,
  starter?: FencingStarter,
): Promise<SweepReport> {
  const started = performance.now();
  const startedAt = deps.clock.now().toISOString();
  const snapshot = await gatherSnapshot(deps, request.thresholds);
  const index = indexSnapshot(snapshot);
  const drafts = classify(index);
  const probed = drafts.filter((d) => d.probe.instances.length > 0 || d.probe.disks.length > 0);
  const answers = await crossCheckFindings(deps, probed, request.maxProviderCalls);
  let findings = drafts.map((d) => conclude(d, answers.byFinding.get(`${d.class}/${d.key}`) ?? null, index));
  if (request.remediate) findings = await remediate(deps, findings, index, request, starter);
  // Not a remediation: it keeps a fence already standing, in every mode but a dry run.
  const fences = await keepFencesAlive(deps, snapshot.nodes, snapshot.fencingsInFlight, request.dryRun);
  const faults = findings.flatMap((f) => {
    const fault = crossCheckFault(f.crossCheck);
    return fault ? [`${f.id}: ${fault}`] : [];
  });
  const tally = (status: string) => findings.filter((f) => f.remediation?.status === status).length;
  const report: SweepReport = {
    cluster: request.cluster,
    mode: modeOf(request),
    startedAt,
    observedAt: snapshot.observedAt,
    finishedAt: deps.clock.now().toISOString(),
    durationMs: Math.round(performance.now() - started),
    scanned: {
      nodes: snapshot.nodes.length,
      volumeAttachments: snapshot.volumeAttachments.length,
      persistentVolumes: snapshot.persistentVolumes.length,
      pendingPods: snapshot.pendingPods.length,
      storageClasses: snapshot.storageClasses.length,
    },
    counts: countByClass(findings),
    providerCalls: answers.calls,
    crossCheck: { failed: faults.length, faults: faults.slice(0, MAX_REPORTED_FAULTS) },
    remediations: {
      done: tally('done'),
      dryRun: tally('dry-run'),
      refused: tally('refused'),
      skipped: tally('skipped'),
      failed: tally('failed'),
    },
    fences,
    findings,
  };
  record(deps, report);
  return report;
}
