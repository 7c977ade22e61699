/**
 * What the fence-agents protocol asks of a fencing device besides fencing (`fencer agent`): the power
 * of one node's machine as its provider reports it (`status`), and every node with its machine and
 * power (`list`, `list-status`, `monitor`). Reads only, through the ComputeFencer port: the same
 * providerID routing and the same provider reads the fence observes with. Only a machine the provider
 * shows stopped or terminated is off; a machine it does not know, one that is not the cluster's, or a
 * state it cannot name is not known, never off.
 */
import { type InstanceRef, isOff, type PowerEvidence, PowerState } from '../../domain/instance.js';
import type { Fallible } from '../../domain/observation.js';
import type { NodeReads } from '../../ports/cluster.js';
import type { ComputeFencer } from '../../ports/compute-fencer.js';
import { mapBounded } from '../shared/bounded.js';
import type { DepsWith } from '../shared/deps.js';

export type AgentDeps = DepsWith<Pick<NodeReads, 'getNode' | 'listNodeProviderIds'>>;

/** A plug's power in the protocol's terms. `fault`: the provider's answer failed (not the machine's state). */
export type PlugPower =
  | { readonly kind: 'on' | 'off'; readonly instanceId: string; readonly evidence: PowerEvidence }
  | {
      readonly kind: 'unknown';
      readonly instanceId: string | null;
      readonly detail: string;
      readonly fault?: boolean;
    };

/** One node and its machine, for `list`; with `power` for `list-status` and `monitor`. */
export interface NodeMachine {
  readonly node: string;
  readonly instanceId: string | null;
  readonly power?: PlugPower;
}

type Machine =
  | { readonly ok: true; readonly fencer: ComputeFencer; readonly ref: InstanceRef }
  | { readonly ok: false; readonly detail: string };

/** The machine a node's providerID names, through the provider that owns it. */
function machineOf(deps: AgentDeps, node: string, providerId: string | undefined): Machine {
  if (!providerId) return { ok: false, detail: `node ${node} has no providerID` };
  const fencer = deps.compute.forProviderId(providerId);
  if (!fencer)
    return { ok: false, detail: `no configured provider owns node ${node}'s providerID ${providerId}` };
  try {
    return { ok: true, fencer, ref: fencer.parseProviderId(providerId) };
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  }
}

/** The provider's power evidence as the protocol's on or off; anything not proven is not known. */
export function plugPowerOf(evidence: PowerEvidence): PlugPower {
  const { instanceId, state } = evidence;
  if (state === PowerState.NotFound)
    return { kind: 'unknown', instanceId, detail: `the provider does not know instance ${instanceId}` };
  if (state === PowerState.Unknown) {
    const said = evidence.providerState ? ` (${evidence.providerState})` : '';
    return {
      kind: 'unknown',
      instanceId,
      detail: `the provider reports no known state for ${instanceId}${said}`,
    };
  }
  // Pending, running, stopping, shutting-down: the machine may still write, so it is on.
  return { kind: isOff(state) ? 'off' : 'on', instanceId, evidence };
}

/** The power of `node`'s machine, from one provider read that checks it is `cluster`'s too. */
export async function nodePower(deps: AgentDeps, node: string, cluster: string): Promise<PlugPower> {
  const view = await deps.cluster.getNode(node);
  if (!view) return { kind: 'unknown', instanceId: null, detail: `node ${node} not found` };
  const machine = machineOf(deps, node, view.providerId);
  if (!machine.ok) return { kind: 'unknown', instanceId: null, detail: machine.detail };
  const { ownership, power } = await machine.fencer.inspect(machine.ref, cluster);
  if (!ownership.owned && ownership.reason !== 'not-found') {
    const id = machine.ref.instanceId;
    return {
      kind: 'unknown',
      instanceId: id,
      detail: `instance ${id} is not cluster ${cluster}'s (${ownership.reason}: ${ownership.detail})`,
    };
  }
  return plugPowerOf(power);
}

const failed = (error: unknown): Fallible<PowerEvidence> => ({
  ok: false,
  error: { name: (error as Error).name, message: (error as Error).message },
});

/** The power of many machines of one provider: its batch read when it has one, else one by one. */
async function powersOf(
  fencer: ComputeFencer,
  refs: readonly InstanceRef[],
): Promise<ReadonlyMap<string, Fallible<PowerEvidence>>> {
  if (fencer.observePowerMany) {
    try {
      return (await fencer.observePowerMany(refs)).results;
    } catch (error) {
      return new Map(refs.map((ref) => [ref.instanceId, failed(error)]));
    }
  }
  const answers = await mapBounded(refs, 4, async (ref) => {
    const answer = await fencer.observePower(ref).then(
      (value): Fallible<PowerEvidence> => ({ ok: true, value }),
      (error: unknown) => failed(error),
    );
    return [ref.instanceId, answer] as const;
  });
  return new Map(answers);
}

function powerFrom(instanceId: string, answer: Fallible<PowerEvidence> | undefined): PlugPower {
  if (answer?.ok) return plugPowerOf(answer.value);
  const why = answer ? `${answer.error.name}: ${answer.error.message}` : 'not answered';
  return {
    kind: 'unknown',
    instanceId,
    detail: `the provider did not answer for ${instanceId} (${why})`,
    fault: true,
  };
}

/** Every node, sorted by name, with its machine's id; with `withPower`, each machine's power too. */
export async function listNodeMachines(
  deps: AgentDeps,
  options: { readonly withPower: boolean },
): Promise<readonly NodeMachine[]> {
  const nodes = [...(await deps.cluster.listNodeProviderIds())].sort((a, b) => a.name.localeCompare(b.name));
  const machines = nodes.map((n) => ({ node: n.name, machine: machineOf(deps, n.name, n.providerId) }));
  const instanceIdOf = (m: Machine) => (m.ok ? m.ref.instanceId : null);
  if (!options.withPower)
    return machines.map(({ node, machine }) => ({ node, instanceId: instanceIdOf(machine) }));
  const byFencer = new Map<ComputeFencer, InstanceRef[]>();
  for (const { machine } of machines)
    if (machine.ok) byFencer.set(machine.fencer, [...(byFencer.get(machine.fencer) ?? []), machine.ref]);
  const answers = new Map<string, Fallible<PowerEvidence>>();
  for (const [fencer, refs] of byFencer)
    for (const [id, a] of await powersOf(fencer, refs)) answers.set(id, a);
  return machines.map(({ node, machine }) => ({
    node,
    instanceId: instanceIdOf(machine),
    power: machine.ok
      ? powerFrom(machine.ref.instanceId, answers.get(machine.ref.instanceId))
      : { kind: 'unknown', instanceId: null, detail: machine.detail },
  }));
}
