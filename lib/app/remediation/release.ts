/**
 * A remediation being deleted (NHC deletes it once the node is healthy again): the node is un-fenced
 * through the un-fence run (lib/app/fence/run-loop.ts `runUnfence`), which removes the fencer's taint
 * only once the node is Ready after a power cycle (SAFETY.md rule 6). Until then the finalizer stays,
 * and the Unfenced condition and an Event say why; the next reconcile tries again when the Node has
 * changed, or after a while. A node that carries nothing of the fencer's, or is gone, is released at
 * once; while the remediation's own run is still going, nothing is decided.
 */
import type { NodeView } from '../../ports/cluster.js';
import type { RemediationStatus } from '../../ports/remediations.js';
import { runUnfence } from '../fence/run-loop.js';
import type { NodeFence, UnfenceProgress } from './conditions.js';
import {
  DEFAULT_UNFENCE_RETRY_SECONDS,
  DEFAULT_UNFENCE_TIMEOUT_SECONDS,
  type RemediationDeps,
  type RemediationSettings,
} from './deps.js';
import { carriesFencerMarks } from './node-fence.js';

/** What to do with a deleted remediation. */
export interface Release {
  /** null: no attempt now (the last one stands). */
  readonly unfence: UnfenceProgress | null;
  /** The finalizer may go: the node is un-fenced, was never fenced, or is gone. */
  readonly removeFinalizer: boolean;
  readonly attempt?: RemediationStatus['unfenceAttempt'];
}

/** A refused attempt is repeated once the Node has changed, or after `retrySeconds`. */
function attemptDue(previous: RemediationStatus | null, node: NodeView, now: number, retrySeconds: number) {
  const last = previous?.unfenceAttempt;
  if (!last) return true;
  if (last.nodeResourceVersion !== node.resourceVersion) return true;
  const at = Date.parse(last.at);
  return !Number.isFinite(at) || now - at >= retrySeconds * 1000;
}

/** The un-fence run for a node that carries the fencer's marks. */
async function unfence(
  deps: RemediationDeps,
  settings: RemediationSettings,
  node: NodeView,
  dryRun: boolean,
): Promise<Release> {
  const now = deps.fencer.clock.now();
  const report = await runUnfence(
    deps.fencer,
    { node: node.name, cluster: settings.cluster, dryRun, waitSeconds: 0 },
    { timeoutSeconds: settings.unfenceTimeoutSeconds ?? DEFAULT_UNFENCE_TIMEOUT_SECONDS },
  );
  if (report.outcome === 'unfenced' || report.outcome === 'dry-run') {
    const message = report.outcome === 'dry-run' ? `dry run: ${report.message}` : report.message;
    return { unfence: { kind: 'unfenced', message }, removeFinalizer: true };
  }
  return {
    unfence: { kind: 'refused', reason: report.reason ?? report.outcome, message: report.message },
    removeFinalizer: false,
    attempt: { at: now.toISOString(), nodeResourceVersion: node.resourceVersion },
  };
}

/**
 * What the deletion of a remediation comes to. `dryRun` (the remediation, or the controller, asked for
 * a dry run): the un-fence reports and changes nothing, and the finalizer goes.
 */
export async function releaseRemediation(
  deps: RemediationDeps,
  settings: RemediationSettings,
  input: {
    readonly previous: RemediationStatus | null;
    readonly node: NodeView | null;
    readonly fence: NodeFence;
    readonly dryRun: boolean;
  },
): Promise<Release> {
  const { previous, node } = input;
  const runName = previous?.runName;
  if (runName && (await deps.runs.state(runName)).kind === 'running') {
    return { unfence: { kind: 'waiting-for-run', runName }, removeFinalizer: false };
  }
  if (node === null) {
    return {
      unfence: { kind: 'unfenced', message: 'the node is gone: nothing to un-fence' },
      removeFinalizer: true,
    };
  }
  if (!carriesFencerMarks(input.fence, node)) {
    const message = `node ${node.name} carries nothing of the fencer’s: nothing to un-fence`;
    return { unfence: { kind: 'unfenced', message }, removeFinalizer: true };
  }
  const retrySeconds = settings.unfenceRetrySeconds ?? DEFAULT_UNFENCE_RETRY_SECONDS;
  if (!attemptDue(previous, node, deps.fencer.clock.now().getTime(), retrySeconds)) {
    return { unfence: null, removeFinalizer: false };
  }
  return unfence(deps, settings, node, input.dryRun);
}
