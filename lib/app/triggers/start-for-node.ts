/**
 * Starting the run for one node an event named: under its deterministic name, with this run's part of
 * the trigger recorded, its outcome counted and logged; a start that fails is an outcome, not an
 * exception, so that one failure does not keep an event's other nodes from their runs.
 */
import type { FenceRequest } from '../../domain/request.js';
import type { NodeView } from '../../ports/cluster.js';
import { TRIGGER_RECORD_LIMITS, type TriggerRecord } from '../../ports/workflow.js';
import { clip, RejectionTally } from './rejections.js';
import { incidentOf, runName, startRun } from './start-run.js';
import { RejectReason, type TriggerDeps, type TriggerOrigin, type TriggerOutcome } from './trigger-types.js';

/** Thrown after every node of an event was tried, when some run could not be started: the event is delivered again. */
export class RunStartError extends Error {
  override readonly name = 'RunStartError';
  constructor(readonly failed: readonly { readonly node: string; readonly error: string }[]) {
    super(
      `${failed.length} run(s) could not be started: ${failed
        .slice(0, 5)
        .map((f) => `${f.node}: ${f.error}`)
        .join('; ')}`,
    );
  }
}

/** Throws {@link RunStartError} when an outcome is a failed start; a retry of the event is safe (run names are deterministic). */
export function failIfStartsFailed(outcomes: readonly TriggerOutcome[]): void {
  const failed = outcomes.flatMap((o) => (o.result === 'failed' ? [{ node: o.node, error: o.error }] : []));
  if (failed.length > 0) throw new RunStartError(failed);
}

/** This run's part of the trigger: its own node and instance, bounded, never the whole event. */
function triggerRecord(
  deps: TriggerDeps,
  origin: TriggerOrigin,
  node: string,
  instanceId?: string,
): TriggerRecord {
  return {
    source: origin.source,
    eventId: clip(origin.eventId, TRIGGER_RECORD_LIMITS.eventId),
    ...(origin.eventTime ? { eventTime: origin.eventTime } : {}),
    detail: clip(origin.detail, TRIGGER_RECORD_LIMITS.detail),
    receivedAt: deps.clock.now().toISOString(),
    node,
    ...(instanceId ? { instanceId } : {}),
  };
}

/**
 * Starts the run for one node and counts what came of it. A start that throws is logged, counted
 * (`RunStartsFailed`) and returned as `failed`; the caller decides whether the event is retried.
 */
export async function startForNode(
  deps: TriggerDeps,
  request: FenceRequest,
  node: NodeView,
  origin: TriggerOrigin,
  options: { readonly instanceId?: string } = {},
): Promise<TriggerOutcome> {
  const trigger = triggerRecord(deps, origin, node.name, options.instanceId);
  const incident = incidentOf(node);
  let outcome: Awaited<ReturnType<typeof startRun>>;
  try {
    outcome = await startRun(deps.workflow, request, incident, trigger);
  } catch (error) {
    const message = clip((error as Error).message ?? String(error), 512);
    // No source dimension: an alarm watches this count, and alarms cannot sum over dimensions.
    deps.metrics.count('RunStartsFailed');
    deps.log.error('fencing run not started', {
      node: node.name,
      runName: runName(request, incident),
      source: origin.source,
      eventId: trigger.eventId,
      error: message,
    });
    return { result: 'failed', node: node.name, runName: runName(request, incident), error: message };
  }
  if (outcome.result === 'exhausted') {
    const detail = `runs up to ${outcome.runName} ended without fencing`;
    const tally = new RejectionTally();
    tally.add(RejectReason.RunsExhausted, detail, { id: node.name, node: node.name });
    tally.report(deps, { eventId: trigger.eventId, source: origin.source });
    return { result: 'rejected', reason: RejectReason.RunsExhausted, detail, node: node.name };
  }
  const metric = outcome.result === 'started' ? 'RunsStarted' : 'TriggersDuplicate';
  deps.metrics.count(metric, { source: origin.source });
  deps.log.info(outcome.result === 'started' ? 'fencing run started' : 'duplicate trigger: run exists', {
    node: node.name,
    ...outcome,
    source: origin.source,
    eventId: trigger.eventId,
  });
  return { ...outcome, node: node.name };
}
