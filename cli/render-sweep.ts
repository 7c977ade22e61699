/** A sweep report in text: one block per finding, with its evidence, provider cross-check and next step. */
import type { SweepReport } from '../lib/app/sweep/report.js';
import { describeCrossCheck } from '../lib/domain/sweep/cross-check.js';
import type { Finding } from '../lib/domain/sweep/finding.js';

const objectRef = (o: Finding['objects'][number]): string =>
  `${o.kind}/${o.namespace ? `${o.namespace}/` : ''}${o.name}`;

function renderFinding(f: Finding): string[] {
  const lines = [
    `${f.class}  ${f.summary}`,
    `  objects:  ${f.objects.map(objectRef).join(', ')}`,
    '  evidence:',
  ];
  for (const e of f.evidence) lines.push(`    - ${e}`);
  if (f.crossCheck) {
    lines.push('  provider:');
    for (const c of describeCrossCheck(f.crossCheck)) lines.push(`    - ${c}`);
  }
  lines.push(`  next:     ${f.nextAction.description}`);
  if (f.nextAction.command) lines.push(`            $ ${f.nextAction.command}`);
  if (f.remediation) {
    const reason = f.remediation.reason ? ` [${f.remediation.reason}]` : '';
    lines.push(`  remediation: ${f.remediation.status.toUpperCase()}${reason} ${f.remediation.detail}`);
  }
  return lines;
}

/** The fenced nodes' blocklist entries: one line per node, then its entries. */
function renderFences(fences: SweepReport['fences']): string[] {
  if (fences.fencedNodes === 0) return [];
  const lines = [
    '',
    `Storage fences: ${fences.fencedNodes} fenced node(s), ${fences.renewed} renewed, ${fences.lost} lost, ${fences.failed} failed, ${fences.unchecked} unchecked`,
  ];
  for (const n of fences.nodes) {
    lines.push(
      `  ${n.node}: ${(n.verdict ?? n.action).toUpperCase()} ${n.action === 'renewed' ? '(renewed) ' : ''}${n.why}`,
    );
    for (const e of n.entries) {
      const listed = e.until ? `  until ${e.until}` : n.verdict ? '  NOT LISTED' : '';
      lines.push(`    - ${e.entry}${listed}`);
    }
  }
  return lines;
}

/** The whole report. */
export function renderSweep(report: SweepReport): string {
  const s = report.scanned;
  const head =
    `Sweep of cluster ${report.cluster}: ${report.findings.length} finding(s) in ${(report.durationMs / 1000).toFixed(1)} s ` +
    `(${report.mode}; scanned ${s.nodes} nodes, ${s.volumeAttachments} VolumeAttachments, ${s.persistentVolumes} PVs, ` +
    `${s.pendingPods} pending pods, ${s.storageClasses} StorageClasses; ${report.providerCalls} provider calls)`;
  const lines = [head];
  const nonzero = Object.entries(report.counts).filter(([, n]) => n > 0);
  if (nonzero.length > 0) lines.push(`by class: ${nonzero.map(([c, n]) => `${c}=${n}`).join(' ')}`);
  const r = report.remediations;
  if (report.mode !== 'report-only') {
    lines.push(
      `remediation: ${r.done} done, ${r.dryRun} dry-run, ${r.refused} refused, ${r.skipped} skipped, ${r.failed} failed`,
    );
  }
  if (report.crossCheck.failed > 0) {
    lines.push(
      `CROSS-CHECK FAILED for ${report.crossCheck.failed} finding(s): the provider did not answer everything, so their conclusions are unproven`,
      ...report.crossCheck.faults.map((fault) => `  - ${fault}`),
    );
  }
  lines.push(...renderFences(report.fences));
  for (const f of report.findings) lines.push('', ...renderFinding(f));
  if (report.findings.length === 0)
    lines.push('No findings: no zombie VolumeAttachments, stuck detaches or topology blockers.');
  return lines.join('\n');
}
