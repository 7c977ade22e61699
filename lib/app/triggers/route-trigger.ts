import type { NodeView } from '../../ports/cluster.js';
import { TRIGGER_RECORD_LIMITS, TriggerSource } from '../../ports/workflow.js';
import { mapBounded } from '../shared/bounded.js';
import { NodeIndex } from './node-index.js';
import { clip, RejectionTally } from './rejections.js';
import { startForNode } from './start-for-node.js';
import {
  DEFAULT_MAX_RUNS_PER_EVENT,
  type InstancesTrigger,
  type NodeTrigger,
  type ParsedTrigger,
  RejectReason,
  type TriggerDeps,
  type TriggerOutcome,
  type TriggerSettings,
} from './trigger-types.js';

/** Starts in flight at once for one event (docs/architecture.md#bounded-fan-outs). */
const STARTS_IN_FLIGHT = 4;
/**
 * How old an instance → node index may be for an EC2 state change. Those arrive for every instance of
 * the region; a node that joined in the last half minute is left to the health check.
 */
export const STATE_CHANGE_INDEX_MAX_AGE_MS = 30_000;

const notReadyMs = (node: NodeView, now: number): number =>
  node.ready === 'True' ? -1 : now - Date.parse(node.readySince ?? node.createdAt);

/**
 * The order in which an event's nodes get the runs it may start: nodes that are not Ready first, the
 * longest NotReady first (a Ready node's run would only refuse), then by name, so that a retried event
 * picks the same nodes (and finds their runs).
 */
function byUrgency(now: number) {
  return (a: { node: NodeView }, b: { node: NodeView }): number =>
    notReadyMs(b.node, now) - notReadyMs(a.node, now) || (a.node.name < b.node.name ? -1 : 1);
}

/** Set by the kubelet when the attach-detach controller attaches the node's volumes (the default). */
const CONTROLLER_MANAGED_ATTACH = 'volumes.kubernetes.io/controller-managed-attach-detach';

/** Whether the node's status names volumes: the kubelet's last report, or the attach-detach controller's. */
const reportsVolumes = (node: NodeView): boolean =>
  Boolean(node.volumesInUse?.length || node.volumesAttached?.length);

/**
 * The nodes of an event that hold nothing, for an instance already off, read from the Node first: a
 * node whose status names volumes in use or attached holds something (an RBD image may have no
 * attachment left), and a node whose volumes the attach-detach controller attaches holds none when
 * its status names none, since the controller records every attachment there. Only the other nodes
 * (attached by their kubelet) are looked up in the VolumeAttachments, the one read here that grows
 * with the cluster. Either way the run that starts checks everything again: this only decides whether
 * to start it, and a node missed here (an attachment the controller had not recorded yet when the
 * instance stopped) is the health check's once it has been NotReady past its threshold.
 */
async function holdingNothing(deps: TriggerDeps, nodes: readonly NodeView[]): Promise<Set<string>> {
  const silent = nodes.filter((n) => !reportsVolumes(n));
  const names = new Set(silent.map((n) => n.name));
  const unrecorded = silent.filter((n) => n.annotations[CONTROLLER_MANAGED_ATTACH] !== 'true');
  if (unrecorded.length === 0) return names;
  // Only these nodes' attachments outlive their page: a burst naming many nodes holds no more.
  const vas = await deps.cluster.listVolumeAttachments({ nodeNames: unrecorded.map((n) => n.name) });
  for (const va of vas) names.delete(va.nodeName);
  return names;
}

async function routeInstances(
  deps: TriggerDeps,
  settings: TriggerSettings,
  trigger: InstancesTrigger,
  tally: RejectionTally,
): Promise<TriggerOutcome[]> {
  const maxAge = trigger.source === TriggerSource.Ec2StateChange ? STATE_CHANGE_INDEX_MAX_AGE_MS : 0;
  const nodes = await (deps.nodeIndex ?? new NodeIndex()).nodesFor(deps, trigger.instanceIds, maxAge);
  let matched: { instanceId: string; node: NodeView }[] = [];
  for (const instanceId of trigger.instanceIds) {
    const node = nodes.get(instanceId);
    if (node) matched.push({ instanceId, node });
    else
      tally.add(RejectReason.NoMatchingNode, `no node of ${settings.cluster} runs on ${instanceId}`, {
        id: instanceId,
      });
  }
  if (trigger.requireVolumeAttachments && matched.length > 0) {
    const idle = await holdingNothing(
      deps,
      matched.map((m) => m.node),
    );
    for (const { instanceId, node } of matched.filter((m) => idle.has(m.node.name))) {
      tally.add(RejectReason.NothingToRelease, `${instanceId} is off and holds no volumes`, {
        id: node.name,
        node: node.name,
      });
    }
    matched = matched.filter((m) => !idle.has(m.node.name));
  }
  matched.sort(byUrgency(deps.clock.now().getTime()));
  const cap = settings.maxRunsPerEvent ?? DEFAULT_MAX_RUNS_PER_EVENT;
  for (const { node } of matched.slice(cap)) {
    tally.add(
      RejectReason.TooManyNodesInEvent,
      `the event names ${matched.length} nodes; one event starts at most ${cap} runs`,
      { id: node.name, node: node.name },
    );
  }
  return mapBounded(matched.slice(0, cap), STARTS_IN_FLIGHT, ({ instanceId, node }) =>
    startForNode(
      deps,
      { ...settings.requestDefaults, node: node.name, cluster: settings.cluster },
      node,
      trigger,
      { instanceId },
    ),
  );
}

async function routeNode(
  deps: TriggerDeps,
  settings: TriggerSettings,
  trigger: NodeTrigger,
  tally: RejectionTally,
): Promise<TriggerOutcome[]> {
  if (trigger.cluster !== settings.cluster) {
    tally.add(
      RejectReason.OtherCluster,
      `cluster ${trigger.cluster}, this fencer serves ${settings.cluster}`,
    );
    return [];
  }
  const node = await deps.cluster.getNode(trigger.node);
  if (!node) {
    tally.add(RejectReason.NodeNotFound, `no node ${trigger.node} in ${settings.cluster}`);
    return [];
  }
  const request = trigger.request ?? {
    ...settings.requestDefaults,
    node: node.name,
    cluster: settings.cluster,
  };
  return [await startForNode(deps, request, node, trigger)];
}

/**
 * Routes one parsed trigger: the runs started (at most the per-event cap), a failed start as `failed`
 * (the others still start), and the rejections aggregated by reason, written once for the event.
 */
export async function routeTrigger(
  deps: TriggerDeps,
  settings: TriggerSettings,
  parsed: ParsedTrigger,
): Promise<readonly TriggerOutcome[]> {
  const tally = new RejectionTally();
  let runs: TriggerOutcome[] = [];
  switch (parsed.kind) {
    case 'rejected':
      tally.add(parsed.reason, parsed.detail);
      break;
    case 'instances':
      runs = await routeInstances(deps, settings, parsed, tally);
      break;
    case 'node':
      runs = await routeNode(deps, settings, parsed, tally);
      break;
  }
  tally.report(deps, {
    ...(parsed.kind === 'rejected' ? {} : { eventId: clip(parsed.eventId, TRIGGER_RECORD_LIMITS.eventId) }),
    ...(parsed.source ? { source: parsed.source } : {}),
  });
  return [...runs, ...tally.outcomes()];
}
