/**
 * From a trigger (an AWS event, the project's own event, a manual request) to fencing runs: map
 * instances to nodes through their providerID, then start one run per node under a deterministic name.
 * Anything that does not name a node of this cluster is rejected with a reason and counted, never
 * guessed at (safety.md rule 10).
 */
import type { FenceRequest } from '../domain/request.js';
import type { NodeView } from '../ports/cluster.js';
import type { TriggerRecord } from '../ports/workflow.js';
import { incidentOf, startRun } from './start-run.js';
import {
  type InstancesTrigger,
  type NodeTrigger,
  type ParsedTrigger,
  RejectReason,
  type TriggerDeps,
  type TriggerOrigin,
  type TriggerOutcome,
  type TriggerSettings,
} from './trigger-types.js';

export * from './trigger-types.js';

/** Counts and logs a rejection; returns it as an outcome. */
export function reject(
  deps: TriggerDeps,
  reason: RejectReason,
  detail: string,
  node?: string,
): TriggerOutcome {
  deps.metrics.count('TriggersRejected', { reason });
  deps.log.warn('trigger rejected', { reason, detail, node });
  return { result: 'rejected', reason, detail, ...(node ? { node } : {}) };
}

/** The nodes whose providerID names one of `instanceIds`, by instance id. */
async function nodesByInstance(
  deps: TriggerDeps,
  instanceIds: readonly string[],
): Promise<Map<string, NodeView>> {
  const wanted = new Set(instanceIds);
  const found = new Map<string, NodeView>();
  for (const node of await deps.cluster.listNodes()) {
    const providerId = node.providerId?.trim();
    const fencer = providerId ? deps.compute.forProviderId(providerId) : null;
    if (!providerId || !fencer) continue;
    try {
      const { instanceId } = fencer.parseProviderId(providerId);
      if (wanted.has(instanceId)) found.set(instanceId, node);
    } catch {
      // A node with an unparseable providerID is no match for anything; fencing it is another story.
    }
  }
  return found;
}

/** Starts the run for one node and counts what came of it. */
export async function startForNode(
  deps: TriggerDeps,
  request: FenceRequest,
  node: NodeView,
  origin: TriggerOrigin,
  incidentId?: string,
): Promise<TriggerOutcome> {
  const trigger: TriggerRecord = { ...origin, receivedAt: deps.clock.now().toISOString() };
  const outcome = await startRun(deps.workflow, request, incidentOf(node, incidentId), trigger);
  if (outcome.result === 'exhausted') {
    return reject(
      deps,
      RejectReason.RunsExhausted,
      `runs up to ${outcome.runName} ended without fencing`,
      node.name,
    );
  }
  const metric = outcome.result === 'started' ? 'RunsStarted' : 'TriggersDuplicate';
  deps.metrics.count(metric, { source: origin.source });
  deps.log.info(outcome.result === 'started' ? 'fencing run started' : 'duplicate trigger: run exists', {
    node: node.name,
    ...outcome,
    source: origin.source,
    eventId: origin.eventId,
  });
  return { ...outcome, node: node.name };
}

async function routeInstances(
  deps: TriggerDeps,
  settings: TriggerSettings,
  trigger: InstancesTrigger,
): Promise<TriggerOutcome[]> {
  const nodes = await nodesByInstance(deps, trigger.instanceIds);
  const outcomes: TriggerOutcome[] = [];
  for (const instanceId of trigger.instanceIds) {
    const node = nodes.get(instanceId);
    if (!node) {
      outcomes.push(
        reject(deps, RejectReason.NoMatchingNode, `no node of ${settings.cluster} runs on ${instanceId}`),
      );
      continue;
    }
    if (trigger.requireVolumeAttachments) {
      const held = await deps.cluster.listVolumeAttachments({ nodeName: node.name });
      if (held.length === 0) {
        outcomes.push(
          reject(deps, RejectReason.NothingToRelease, `${instanceId} is off and holds no volumes`, node.name),
        );
        continue;
      }
    }
    const request = { ...settings.requestDefaults, node: node.name, cluster: settings.cluster };
    outcomes.push(await startForNode(deps, request, node, trigger));
  }
  return outcomes;
}

async function routeNode(
  deps: TriggerDeps,
  settings: TriggerSettings,
  trigger: NodeTrigger,
): Promise<TriggerOutcome> {
  if (trigger.cluster !== settings.cluster) {
    return reject(
      deps,
      RejectReason.OtherCluster,
      `cluster ${trigger.cluster}, this fencer serves ${settings.cluster}`,
    );
  }
  const node = await deps.cluster.getNode(trigger.node);
  if (!node) return reject(deps, RejectReason.NodeNotFound, `no node ${trigger.node} in ${settings.cluster}`);
  const request = trigger.request ?? {
    ...settings.requestDefaults,
    node: node.name,
    cluster: settings.cluster,
  };
  return startForNode(deps, request, node, trigger, trigger.incidentId);
}

/** Routes one parsed trigger: a rejection is counted; a trigger starts at most one run per node it names. */
export async function routeTrigger(
  deps: TriggerDeps,
  settings: TriggerSettings,
  parsed: ParsedTrigger,
): Promise<readonly TriggerOutcome[]> {
  switch (parsed.kind) {
    case 'rejected':
      return [reject(deps, parsed.reason, parsed.detail)];
    case 'instances':
      return routeInstances(deps, settings, parsed);
    case 'node':
      return [await routeNode(deps, settings, parsed)];
  }
}
