/**
 * The machine behind a node, as one step sees it: the provider its providerID names, one read for the
 * machine's ownership, power and identity (its disks only when asked), and the other Nodes naming it.
 */
import { ProviderIdError } from '../../domain/errors.js';
import type { InstanceRef } from '../../domain/instance.js';
import type { Fallible, ObservedInstance, ObservedNode } from '../../domain/observation.js';
import type { NodeView } from '../../ports/cluster.js';
import type { ComputeFencer, InstanceInspection } from '../../ports/compute-fencer.js';
import type { FencerDeps } from '../shared/deps.js';
import { fallible } from '../shared/faults.js';

/** Other nodes whose providerID names the same machine (the same provider's instance id). */
function nodesNaming(
  deps: FencerDeps,
  fencer: ComputeFencer,
  ref: InstanceRef,
  nodeName: string,
  nodes: readonly NodeView[],
): string[] {
  return nodes
    .filter((n) => n.name !== nodeName && n.providerId && deps.compute.forProviderId(n.providerId) === fencer)
    .filter((n) => {
      try {
        return fencer.parseProviderId(n.providerId).instanceId === ref.instanceId;
      } catch {
        return false;
      }
    })
    .map((n) => n.name)
    .sort();
}

export interface InstanceRead {
  readonly instance: ObservedInstance;
  readonly fencer: ComputeFencer | null;
  readonly ref: InstanceRef | null;
}

/** The node's machine, read within `budgetMs` and with its disks when `withDisks`. */
export async function observeInstance(
  deps: FencerDeps,
  node: ObservedNode,
  nodes: readonly NodeView[],
  cluster: string,
  options: { readonly providerBudgetMs: number; readonly withDisks: boolean },
): Promise<InstanceRead> {
  if (node.providerId === null) {
    return {
      instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
      fencer: null,
      ref: null,
    };
  }
  const fencer = deps.compute.forProviderId(node.providerId);
  if (!fencer) {
    const detail = `no configured provider handles providerID ${JSON.stringify(node.providerId)}`;
    return { instance: { resolved: false, problem: 'unknown-provider', detail }, fencer: null, ref: null };
  }
  let ref: InstanceRef;
  try {
    ref = fencer.parseProviderId(node.providerId);
  } catch (err) {
    if (!(err instanceof ProviderIdError)) throw err;
    return { instance: { resolved: false, problem: err.problem, detail: err.message }, fencer, ref: null };
  }
  // One read for ownership, power and identity; the disks only when the step needs them.
  const signal = AbortSignal.timeout(options.providerBudgetMs);
  const [inspection, disks] = await Promise.all([
    fallible<InstanceInspection>(() => fencer.inspect(ref, cluster, { signal })),
    options.withDisks ? fallible(() => fencer.attachedDisks(ref, { signal })) : Promise.resolve(null),
  ]);
  const part = <K extends keyof InstanceInspection>(key: K): Fallible<InstanceInspection[K]> =>
    inspection.ok ? { ok: true, value: inspection.value[key] } : inspection;
  return {
    instance: {
      resolved: true,
      ref,
      ownership: part('ownership'),
      power: part('power'),
      identity: part('identity'),
      otherNodes: nodesNaming(deps, fencer, ref, node.name, nodes),
      disks,
    },
    fencer,
    ref,
  };
}
