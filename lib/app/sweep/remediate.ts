/**
 * What `--remediate` does, and only that (SAFETY.md rule 5): delete a VolumeAttachment whose node is
 * gone when the provider proved its disk released, re-checking the node, the attachment and the provider right before;
 * and start fencing for nodes NotReady too long, within the blast-radius limits (the fence use case
 * re-checks every safety rule itself). Everything else stays report-only. Every refusal is loud (rule 9).
 */
import { SweepClass } from '../../domain/sweep/classes.js';
import type { Finding, RemediationResult } from '../../domain/sweep/finding.js';
import { fencingBudget, judgeVolumeAttachmentDeletion, SweepReason } from '../../domain/sweep/remediation.js';
import type { SweepIndex } from '../../domain/sweep/sweep-index.js';
import { mapBounded } from '../shared/bounded.js';
import type { SweepDeps } from './deps.js';
import { crossCheckFindings } from './provider-check.js';
import type { SweepRequest } from './report.js';

/** Starts fencing for a node: a Step Functions run in AWS, the in-process loop in the CLI. */
export interface FencingStarter {
  start(node: string, detail: string): Promise<RemediationResult>;
}

/** Provider calls for the re-read before one deletion: the disk, then the machines it is attached to. */
const RECHECK_PROVIDER_CALLS = 4;

/** Deletions (each with its re-checks) in flight at once. */
const REMEDIATIONS_IN_FLIGHT = 4;

const refused = (reason: string, detail: string): RemediationResult => ({
  status: 'refused',
  reason,
  detail,
});
const skipped = (reason: string, detail: string): RemediationResult => ({
  status: 'skipped',
  reason,
  detail,
});

async function deleteZombie(
  deps: SweepDeps,
  finding: Finding,
  index: SweepIndex,
  request: SweepRequest,
): Promise<RemediationResult> {
  const verdict = judgeVolumeAttachmentDeletion(finding, finding.crossCheck, index);
  if (!verdict.allowed) return refused(verdict.reason, verdict.detail);
  const va = index.attachments.get(finding.key);
  if (!va)
    return skipped(
      SweepReason.VolumeAttachmentChanged,
      `VolumeAttachment ${finding.key} not in the snapshot`,
    );
  // Re-check right before acting: the node may have come back, the attachment may have changed.
  const [node, current] = await Promise.all([
    deps.cluster.getNode(va.nodeName),
    deps.cluster.getVolumeAttachment(va.name),
  ]);
  if (node) return refused(SweepReason.NodeExists, `node ${va.nodeName} exists again`);
  if (!current || current.uid !== va.uid || current.deletionTimestamp) {
    return skipped(
      SweepReason.VolumeAttachmentChanged,
      `VolumeAttachment ${va.name} changed or is already going`,
    );
  }
  // And the provider, read again: the disk may have been attached somewhere since the sweep's cross-check.
  const fresh = await crossCheckFindings(deps, [finding], RECHECK_PROVIDER_CALLS);
  const recheck = judgeVolumeAttachmentDeletion(
    finding,
    fresh.byFinding.get(`${finding.class}/${finding.key}`) ?? null,
    index,
  );
  if (!recheck.allowed) return refused(recheck.reason, `on re-reading the provider: ${recheck.detail}`);
  const result = await deps.cluster.deleteVolumeAttachment(
    { name: va.name, uid: va.uid },
    { dryRun: request.dryRun },
  );
  const what = result === 'deleted' ? 'deleted' : 'already gone';
  return {
    status: request.dryRun ? 'dry-run' : 'done',
    detail: `${request.dryRun ? 'would delete' : what} VolumeAttachment ${va.name}: node ${va.nodeName} is gone and ${recheck.proof}`,
  };
}

async function startFencings(
  findings: readonly Finding[],
  index: SweepIndex,
  request: SweepRequest,
  starter: FencingStarter | undefined,
): Promise<Map<string, RemediationResult>> {
  const results = new Map<string, RemediationResult>();
  const budget = fencingBudget(index, request.limits);
  const longestFirst = [...findings].sort((a, b) =>
    (index.nodes.get(a.key)?.readySince ?? '').localeCompare(index.nodes.get(b.key)?.readySince ?? ''),
  );
  let started = 0;
  for (const f of longestFirst) {
    if (!f.nextAction.automatic) {
      results.set(
        f.id,
        skipped(SweepReason.OptedOut, 'the node opted out of fencing or is a control-plane node'),
      );
    } else if (budget.refusal) {
      results.set(f.id, skipped(budget.refusal.reason, budget.refusal.detail));
    } else if (started >= budget.allowed) {
      results.set(
        f.id,
        skipped(SweepReason.FencingCapacityReached, `only ${budget.allowed} fencing(s) may start now`),
      );
    } else if (!starter) {
      results.set(f.id, skipped(SweepReason.NoFencingStarter, 'this sweep cannot start fencing runs'));
    } else if (request.dryRun) {
      started++;
      results.set(f.id, { status: 'dry-run', detail: `would start fencing node ${f.key}` });
    } else {
      started++;
      results.set(f.id, await starter.start(f.key, f.summary));
    }
  }
  return results;
}

async function audit(deps: SweepDeps, finding: Finding, result: RemediationResult): Promise<void> {
  deps.metrics.count('SweepRemediations', { class: finding.class, status: result.status });
  const fields = { finding: finding.id, status: result.status, reason: result.reason, detail: result.detail };
  if (result.status === 'refused' || result.status === 'failed')
    deps.log.warn('sweep remediation refused', fields);
  else deps.log.info('sweep remediation', fields);
  const node = finding.objects.find((o) => o.kind === 'Node')?.name;
  if (!node || result.status === 'dry-run' || finding.class !== SweepClass.VaNodeMissing) return;
  await deps.cluster.recordNodeEvent(node, {
    type: result.status === 'done' ? 'Normal' : 'Warning',
    reason: result.status === 'done' ? 'SweepDeletedVolumeAttachment' : `SweepRefused${result.reason ?? ''}`,
    message: `${finding.key}: ${result.detail}`,
    action: 'DeleteVolumeAttachment',
  });
}

/** Performs the remediations the request allows; returns the findings with what was done. */
export async function remediate(
  deps: SweepDeps,
  findings: readonly Finding[],
  index: SweepIndex,
  request: SweepRequest,
  starter?: FencingStarter,
): Promise<Finding[]> {
  const fencings = await startFencings(
    findings.filter((f) => f.class === SweepClass.VaOnNotReadyNode),
    index,
    request,
    starter,
  );
  // Each deletion re-reads its node and attachment first; a few in flight at once
  // (docs/architecture.md#bounded-fan-outs).
  return mapBounded(findings, REMEDIATIONS_IN_FLIGHT, async (finding) => {
    let result: RemediationResult | null = fencings.get(finding.id) ?? null;
    if (finding.class === SweepClass.VaNodeMissing) {
      result = await deleteZombie(deps, finding, index, request).catch((error: Error) => ({
        status: 'failed' as const,
        reason: error.name,
        detail: error.message,
      }));
    }
    if (result) await audit(deps, finding, result);
    return result ? { ...finding, remediation: result } : finding;
  });
}
