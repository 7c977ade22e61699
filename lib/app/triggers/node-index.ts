/**
 * Which node runs on which instance, read from the nodes' providerIDs. An EC2 state change arrives for
 * every instance of the region that stops or terminates (a scale-in stops hundreds at once), and almost
 * none of them is a node that matters: a runtime keeps the index for a short while, so such a burst
 * does not list every node once per event. The index holds a name per instance, not the nodes (a
 * 5,000-node cluster is a few hundred kilobytes of it); the nodes an event does name are read afresh
 * before a run starts, since their Ready condition is the incident's key (start-run.ts `incidentOf`).
 */
import type { Clock } from '../../ports/audit.js';
import type { NodeProviderId, NodeReads, NodeView } from '../../ports/cluster.js';
import type { ComputeFencer } from '../../ports/compute-fencer.js';
import { mapBounded } from '../shared/bounded.js';

/** What the triggers need of the compute providers: only to read providerIDs (no provider call is made). */
export interface ProviderIdReaders {
  forProviderId(providerId: string): Pick<ComputeFencer, 'parseProviderId'> | null;
}

/** What the index reads: the nodes' providerIDs, a node, the time. */
export interface NodeIndexDeps {
  readonly cluster: Pick<NodeReads, 'listNodeProviderIds' | 'getNode'>;
  readonly compute: ProviderIdReaders;
  readonly clock: Clock;
}

/** Node reads in flight at once (docs/architecture.md#bounded-fan-outs). */
const READS_IN_FLIGHT = 4;

/** The instance a node's providerID names, or null when no configured provider reads it. */
export function instanceOf(
  deps: Pick<NodeIndexDeps, 'compute'>,
  node: Pick<NodeView, 'providerId'>,
): string | null {
  const providerId = node.providerId?.trim();
  const reader = providerId ? deps.compute.forProviderId(providerId) : null;
  if (!providerId || !reader) return null;
  try {
    return reader.parseProviderId(providerId).instanceId;
  } catch {
    // A node with an unparseable providerID is no match for anything; fencing it is another story.
    return null;
  }
}

/** An instance → node-name index with the time it was built. */
export class NodeIndex {
  #index: { readonly builtAt: number; readonly byInstance: ReadonlyMap<string, string> } | undefined;

  /**
   * The nodes running `instanceIds`, by instance id. With `maxAgeMs` 0, or an index older than that,
   * the index is rebuilt from every node's providerID (page by page, names only); either way each
   * node it names is read again, so a run never starts from a stale view of its node, and the cost
   * of an event with a fresh index is the reads of the nodes it names, whatever the cluster's size.
   */
  async nodesFor(
    deps: NodeIndexDeps,
    instanceIds: readonly string[],
    maxAgeMs: number,
  ): Promise<Map<string, NodeView>> {
    const now = deps.clock.now().getTime();
    if (!this.#index || maxAgeMs <= 0 || now - this.#index.builtAt > maxAgeMs) {
      this.#index = { builtAt: now, byInstance: indexOf(deps, await deps.cluster.listNodeProviderIds()) };
    }
    const { byInstance } = this.#index;
    const named = [...new Set(instanceIds)].flatMap((id) => {
      const name = byInstance.get(id);
      return name ? [{ id, name }] : [];
    });
    const found = new Map<string, NodeView>();
    await mapBounded(named, READS_IN_FLIGHT, async ({ id, name }) => {
      const node = await deps.cluster.getNode(name);
      // Gone, or re-created on another instance since the index was built: not this instance's node.
      if (node && instanceOf(deps, node) === id) found.set(id, node);
    });
    return found;
  }
}

const indexOf = (
  deps: Pick<NodeIndexDeps, 'compute'>,
  nodes: readonly NodeProviderId[],
): Map<string, string> => {
  const byInstance = new Map<string, string>();
  for (const node of nodes) {
    const instanceId = instanceOf(deps, node);
    if (instanceId !== null) byInstance.set(instanceId, node.name);
  }
  return byInstance;
};
