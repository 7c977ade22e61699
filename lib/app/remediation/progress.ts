/**
 * Where a remediation's fencing stands, starting its run when none is going: through the triggers'
 * own path (start-for-node.ts), under the run's deterministic name (start-run.ts), so a second
 * reconcile, or another trigger asking for the same request and incident, never starts a second run.
 * A node whose fencing claim another run holds is left to that run.
 */
import type { FenceRequest } from '../../domain/request.js';
import { CLAIM_TTL_SECONDS } from '../../domain/timing.js';
import type { NodeView } from '../../ports/cluster.js';
import { NHC_ANNOTATION, type RemediationObject, type RemediationStatus } from '../../ports/remediations.js';
import { TriggerSource } from '../../ports/workflow.js';
import { startForNode } from '../triggers/start-for-node.js';
import { incidentOf, runName } from '../triggers/start-run.js';
import type { NodeFence, RunProgress } from './conditions.js';
import type { RemediationDeps } from './deps.js';

/** What the reconcile found, and whether it started a run now. */
export interface Progress {
  /** null: the remediation ended before (its record says how) and its runner forgot the run: keep it. */
  readonly progress: RunProgress | null;
  readonly started: boolean;
}

const settled = (status: RemediationStatus | null): boolean =>
  (status?.conditions ?? []).some((c) => c.type === 'Succeeded' && c.status !== 'Unknown');

/** The run this remediation recorded, as its runner remembers it; null when it knows nothing of it. */
async function recordedRun(deps: RemediationDeps, name: string | undefined): Promise<RunProgress | null> {
  if (!name) return null;
  const state = await deps.runs.state(name);
  if (state.kind === 'ended') return { kind: 'ended', runName: name, end: state.end };
  if (state.kind === 'running') return { kind: 'going', runName: name };
  return null;
}

/**
 * Another run holding the node's fencing claim, if any. `ours` is the first name of this request's runs
 * for the incident: a runner's run id holds its name (the controller's `kc-<name>`, a later attempt's
 * `<name>-r2`), and the name's hash keeps every other request's and incident's runs apart.
 */
async function otherRun(deps: RemediationDeps, node: string, ours: string): Promise<string | null> {
  const claims = await deps.triggers.cluster.listFencingClaims(CLAIM_TTL_SECONDS);
  return claims.claims.find((c) => c.node === node && !c.runId.includes(ours))?.runId ?? null;
}

/** Starts the run; what became of the start, as progress. */
async function start(
  deps: RemediationDeps,
  object: RemediationObject,
  request: FenceRequest,
  node: NodeView,
  eventId: string,
): Promise<Progress> {
  const origin = {
    source: TriggerSource.NhcRemediation,
    eventId,
    detail: `KubeFencerRemediation ${object.namespace}/${object.name} (uid ${object.uid})`,
  };
  const outcome = await startForNode(deps.triggers, request, node, origin);
  switch (outcome.result) {
    case 'started':
    case 'duplicate':
      return { progress: { kind: 'going', runName: outcome.runName }, started: outcome.result === 'started' };
    case 'failed':
      return { progress: { kind: 'start-failed', message: outcome.error }, started: false };
    case 'rejected':
      return {
        progress: { kind: 'exhausted', message: `${outcome.reason}: ${outcome.detail}` },
        started: false,
      };
    default:
      return {
        progress: { kind: 'exhausted', message: `runs up to ${outcome.runName} ended` },
        started: false,
      };
  }
}

/**
 * The remediation's progress. In order: its recorded run's end or its going on; the fencer's fence
 * already on the node; a remediation that ended before and whose run is forgotten (kept as recorded);
 * NHC's timeout (nothing new is started); another run on the node; else its run is started.
 */
export async function remediationProgress(
  deps: RemediationDeps,
  object: RemediationObject,
  previous: RemediationStatus | null,
  request: FenceRequest,
  target: { readonly node: NodeView; readonly fence: NodeFence; readonly eventId: string },
): Promise<Progress> {
  const { node, fence, eventId } = target;
  const recorded = await recordedRun(deps, previous?.runName);
  if (recorded) return { progress: recorded, started: false };
  if (fence.tainted) return { progress: { kind: 'already-fenced' }, started: false };
  if (previous?.runName && settled(previous)) return { progress: null, started: false };
  const timedOut = object.annotations[NHC_ANNOTATION.timedOut];
  if (timedOut !== undefined) {
    return { progress: { kind: 'timed-out-by-nhc', at: timedOut || 'an unknown time' }, started: false };
  }
  const other = await otherRun(deps, node.name, runName(request, incidentOf(node)));
  if (other) return { progress: { kind: 'other-run', runId: other }, started: false };
  return start(deps, object, request, node, eventId);
}
