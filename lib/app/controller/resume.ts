/**
 * What a new leader takes over: the runs an earlier leader left going. A run that had committed to
 * fencing left a sealed checkpoint on its Node (lib/app/fence/run-checkpoint.ts): it is continued under
 * its own run id, from its own memory (its decision time, its power-off request), so the machine is
 * never powered off a second time. A checkpoint whose seal is not this deployment's is no memory of a
 * run at all and is left alone, loudly. A run that had only claimed its node (nothing done yet) is
 * adopted when its run id is the one this controller's health check names for the node's incident.
 */
import { FENCER_ANNOTATION } from '../../domain/node-marks.js';
import type { FenceRequest } from '../../domain/request.js';
import { ClaimTtlSeconds } from '../../domain/timing.js';
import type { NodeView } from '../../ports/cluster.js';
import { TriggerSource, type Workflow } from '../../ports/workflow.js';
import type { RunCheckpoints } from '../fence/run-checkpoint.js';
import type { FencerDeps } from '../shared/deps.js';
import { incidentOf, MAX_RUNS_PER_INCIDENT, runName } from '../triggers/start-run.js';
import type { FenceRequestDefaults } from '../triggers/trigger-types.js';
import { controllerRunId, runNameOf } from './in-process-workflow.js';

export interface ResumeSettings {
  readonly cluster: string;
  readonly requestDefaults: FenceRequestDefaults;
  readonly checkpointsFor: (runId: string) => RunCheckpoints;
}

/** The run id a checkpoint says it belongs to; whether it truly does is for its seal to say. */
function claimedRunId(node: NodeView): string | null {
  const raw = node.annotations[FENCER_ANNOTATION.runCheckpoint];
  if (!raw) return null;
  try {
    const runId = (JSON.parse(raw) as { history?: { runId?: unknown } }).history?.runId;
    return typeof runId === 'string' && runId.length > 0 ? runId : null;
  } catch {
    return null;
  }
}

const trigger = (node: string, receivedAt: string, detail: string) => ({
  source: TriggerSource.HealthCheck,
  eventId: `takeover:${node}`,
  detail,
  receivedAt,
  node,
});

/** Continues every run whose sealed checkpoint is on a node that is not Ready. Returns the nodes taken over. */
async function resumeCheckpointed(
  deps: FencerDeps,
  workflow: Workflow,
  settings: ResumeSettings,
  nodes: readonly NodeView[],
): Promise<Set<string>> {
  const taken = new Set<string>();
  for (const node of nodes) {
    const runId = claimedRunId(node);
    // Another runner's checkpoint (a Function Compute run's) is its runner's to continue.
    const name = runId ? runNameOf(runId) : null;
    if (!runId || !name) continue;
    let request: FenceRequest | undefined;
    try {
      const checkpoint = await settings.checkpointsFor(runId).read(node.name, runId);
      if (!checkpoint || checkpoint.decision?.done) continue;
      request = checkpoint.request;
    } catch (error) {
      deps.log.warn('a run checkpoint on the node is not one this deployment sealed: not continued', {
        node: node.name,
        runId,
        error: (error as Error).message,
      });
      continue;
    }
    const now = deps.clock.now().toISOString();
    await workflow.start(name, {
      request,
      trigger: trigger(node.name, now, `continued from its checkpoint by a new leader (run ${runId})`),
    });
    deps.log.info('continuing a run an earlier leader left', { node: node.name, runId });
    taken.add(node.name);
  }
  return taken;
}

/** Adopts the claims whose run id is the health check's own name for the node's incident. */
async function adoptClaims(
  deps: FencerDeps,
  workflow: Workflow,
  settings: ResumeSettings,
  nodes: ReadonlyMap<string, NodeView>,
  taken: ReadonlySet<string>,
): Promise<string[]> {
  const adopted: string[] = [];
  const { claims } = await deps.cluster.listFencingClaims(ClaimTtlSeconds.InProcess);
  for (const claim of claims) {
    const node = nodes.get(claim.node);
    if (!node || taken.has(claim.node)) continue;
    const request = { ...settings.requestDefaults, node: node.name, cluster: settings.cluster };
    const incident = incidentOf(node);
    const name = Array.from({ length: MAX_RUNS_PER_INCIDENT }, (_, i) =>
      runName(request, incident, i + 1),
    ).find((n) => controllerRunId(n) === claim.runId);
    if (!name) continue;
    const now = deps.clock.now().toISOString();
    await workflow.start(name, {
      request,
      trigger: trigger(node.name, now, `claim adopted by a new leader (run ${claim.runId})`),
    });
    deps.log.info('continuing a claimed run an earlier leader left', { node: node.name, runId: claim.runId });
    adopted.push(node.name);
  }
  return adopted;
}

/** Takes over what an earlier leader left: checkpointed runs first, then claimed ones. */
export async function takeOverRuns(
  deps: FencerDeps,
  workflow: Workflow,
  settings: ResumeSettings,
): Promise<string[]> {
  const unready = (await deps.cluster.listNodeReadiness()).filter((n) => !n.ready).map((n) => n.name);
  const nodes = (await Promise.all(unready.map((name) => deps.cluster.getNode(name)))).filter(
    (n): n is NodeView => n !== null,
  );
  const taken = await resumeCheckpointed(deps, workflow, settings, nodes);
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const adopted = await adoptClaims(deps, workflow, settings, byName, taken);
  return [...taken, ...adopted];
}
