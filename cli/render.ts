import type { StepDecision } from '../lib/app/fence/outcome.js';
import type { RunReport } from '../lib/app/fence/report.js';
import type { NodeStatus } from '../lib/app/status/status.js';

const since = (start: string, at: string): string =>
  `+${((Date.parse(at) - Date.parse(start)) / 1000).toFixed(1)}s`;

/** One progress line per step, as it happens. */
export function stepLine(startedAt: string, step: StepDecision): string {
  const action = step.actionResult ? `  → ${step.actionResult}` : '';
  const reason = step.reason ? `[${step.reason}] ` : '';
  return `${since(startedAt, step.at).padStart(8)}  ${step.phase.padEnd(14)} ${reason}${step.message}${action}`;
}

const VERDICT: Record<string, string> = {
  fenced: 'FENCED',
  unfenced: 'UN-FENCED',
  refused: 'REFUSED',
  failed: 'FAILED',
  'dry-run': 'DRY RUN (nothing changed)',
  'in-progress': 'NOT FINISHED',
};

/** The final report in text: verdict, proof, timings, evidence, and the timeline of steps. */
export function renderReport(report: RunReport): string {
  const lines: string[] = [];
  const reason = report.reason ? ` [${report.reason}]` : '';
  lines.push(
    `${report.node}: ${VERDICT[report.outcome] ?? report.outcome}${reason} after ${report.durationSeconds.toFixed(1)} s (run ${report.runId})`,
  );
  lines.push(`  ${report.message}`);
  if (report.proofOfOff) {
    const p = report.proofOfOff;
    lines.push(
      `  proof of off: ${p.instanceId} ${p.providerState ?? p.state}${p.stateCode !== undefined ? ` (code ${p.stateCode})` : ''} observed ${p.observedAt}${p.stateReason ? `, ${p.stateReason}` : ''}`,
    );
  }
  if (report.storageProof) {
    const b = report.storageProof;
    lines.push(
      `  storage fenced: ${b.found.map((e) => e.entry).join(', ')} on the blocklist, confirmed ${b.observedAt}`,
    );
  }
  const t = report.timings;
  const timing = [
    t.decisionToProofSeconds !== null ? `decision→proof ${t.decisionToProofSeconds} s` : null,
    t.proofToTaintSeconds !== null ? `proof→taint ${t.proofToTaintSeconds} s` : null,
    t.taintToReleasedSeconds !== null ? `taint→released ${t.taintToReleasedSeconds} s` : null,
  ].filter(Boolean);
  if (timing.length) lines.push(`  timings: ${timing.join(', ')}`);
  if (report.evidence.length) {
    lines.push('  evidence:');
    for (const e of report.evidence) lines.push(`    - ${e}`);
  }
  if (report.downstream.length) {
    lines.push("  still blocking the volumes (not the fence's doing):");
    for (const d of report.downstream) lines.push(`    - ${d}`);
  }
  lines.push('  timeline:');
  for (const step of report.steps) lines.push(`  ${stepLine(report.startedAt, step)}`);
  return lines.join('\n');
}

export function renderStatus(rows: readonly NodeStatus[]): string {
  if (rows.length === 0) return 'No node is unhealthy, tainted out-of-service, or being fenced.';
  const header = [
    'NODE',
    'READY',
    'OUT-OF-SERVICE',
    'FENCED-AT',
    'RUN',
    'PODS',
    'TERMINATING',
    'VOLUMEATTACHMENTS',
  ];
  const table = rows.map((r) => [
    r.node,
    r.ready,
    r.outOfService,
    r.fenceRecord?.fencedAt ?? '-',
    r.fencingRun ?? '-',
    String(r.pods),
    String(r.terminatingPods),
    `${r.attachedVolumeAttachments}/${r.volumeAttachments} attached`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]?.length ?? 0)));
  return [header, ...table]
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
