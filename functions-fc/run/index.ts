/**
 * The fencing run: one asynchronous task per run (started by a trigger under the run's name), running
 * the shared reconcile loop within the function's time and recording its state on the Node. A crashed
 * or timed-out attempt is retried by Function Compute and continues from that record
 * (lib/app/fence/durable-run.ts). The answer (at most a few KB: FC's destinations carry 64 KB) goes to the
 * on-success destination, the outcomes bus.
 */
import { runFenceDurably } from '../../lib/app/fence/durable-run.js';
import { runCheckpoints } from '../../lib/compose.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { fcHandler } from '../shared/fc-context.js';
import { fcRunInputSchema, runResult } from '../shared/run-result.js';
import { fencerDeps, settings, taskIdOf, telemetry } from '../shared/runtime.js';

/** Seconds kept back from the function's timeout, so that an attempt ends (and gives its claim back) itself. */
const MARGIN_SECONDS = 30;

export const handler = fcHandler(telemetry, settings.cluster, async (event, context, credentials) => {
  const { request, runName, trigger, seal } = parseOrThrow(fcRunInputSchema, event, 'run input');
  const runId = taskIdOf(runName);
  telemetry.setContext({
    requestId: context.requestId,
    functionName: context.function?.name,
    cluster: request.cluster,
    runId,
  });
  const deps = await fencerDeps(credentials);
  const limit = (context.function?.timeout ?? settings.runTimeoutSeconds + MARGIN_SECONDS) - MARGIN_SECONDS;
  const report = await runFenceDurably(deps, request, runCheckpoints(deps, runId, seal), {
    runId,
    timeoutSeconds: Math.max(30, Math.min(settings.runTimeoutSeconds, limit)),
  });
  telemetry.log.info('fencing run attempt ended', { ...report, trigger });
  return runResult(report);
});
