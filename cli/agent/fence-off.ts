/**
 * `action=off` (and `reboot`, which is off here): kube-fencer's own fence of the node, exactly as
 * `fencer fence NODE` runs it with its defaults (cli/commands/fence.ts): the request parsed by
 * lib/config/fence-request.ts, the same access check and dependencies (cli/access.ts), the same run loop
 * with every proof and refusal of decide(). Only a completed fence is success: the machine proven off,
 * the node tainted out-of-service, its pods and VolumeAttachments cleared.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunReport } from '../../lib/app/fence/report.js';
import { progressHandlers, stopOnPermanentError } from '../commands/report-output.js';
import { AgentExit } from './exit.js';
import type { AgentSettings } from './settings.js';

/** The proofs a completed fence rests on, in one line. */
function proofLine(report: RunReport): string {
  const machine = report.proofOfOff
    ? `instance ${report.proofOfOff.instanceId} ${report.proofOfOff.state} (observed ${report.proofOfOff.observedAt})`
    : null;
  const storage = report.storageProof ? `blocklist confirmed (${report.storageProof.observedAt})` : null;
  return [machine, storage].filter(Boolean).join(', ') || 'fenced';
}

/**
 * Stops the run when the caller gives up on the agent (Pacemaker's timeout sends SIGTERM): the run
 * loop then gives its claim on the node back, so the caller's next attempt is not held up by it.
 */
function onTermination(): { readonly signal: AbortSignal; readonly dispose: () => void } {
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals) => controller.abort(new Error(`the agent received ${signal}`));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
    },
  };
}

export async function fenceOff(settings: AgentSettings, node: string, cluster: string): Promise<number> {
  const { parseFenceRequest } = await import('../../lib/config/fence-request.js');
  const request = parseFenceRequest({ node, cluster, limits: settings.limits });
  const { connect } = await import('../access.js');
  const { deps } = await connect(connectionOf(settings), {
    use: { command: 'fence', deletesPods: request.accelerate, strategy: request.strategy },
    cloud: true,
  });
  if (settings.delaySeconds > 0) await sleep(settings.delaySeconds * 1000);
  const { runFence } = await import('../../lib/app/fence/run-loop.js');
  const progress = progressHandlers('text');
  const stop = stopOnPermanentError(progress);
  const termination = onTermination();
  let report: RunReport;
  try {
    report = await runFence(deps, request, {
      timeoutSeconds: settings.timeoutSeconds,
      ...progress,
      onRetry: stop.onRetry,
      signal: AbortSignal.any([stop.signal, termination.signal]),
    });
  } finally {
    termination.dispose();
  }
  const permanent = stop.error();
  if (permanent) throw permanent;
  if (report.outcome !== 'fenced') {
    const reason = report.reason ? ` (${report.reason})` : '';
    process.stderr.write(
      `fencer: off ${node} ${report.outcome}${reason}: ${report.message.replace(/\s*\n\s*/g, ' ')}\n`,
    );
    return AgentExit.Error;
  }
  process.stdout.write(`fenced ${node}: ${proofLine(report)}, tainted out-of-service; run ${report.runId}\n`);
  return AgentExit.Ok;
}

/** The agent's settings as the connection options every command passes to cli/access.ts. */
export function connectionOf(settings: AgentSettings) {
  return {
    output: 'text' as const,
    logJson: settings.verbose,
    debug: settings.verbose,
    ...(settings.kubeconfig ? { kubeconfig: settings.kubeconfig } : {}),
    ...(settings.context ? { context: settings.context } : {}),
    ...(settings.region ? { region: settings.region } : {}),
    ...(settings.accountId ? { accountId: settings.accountId } : {}),
    ...(settings.cluster ? { cluster: settings.cluster } : {}),
  };
}
