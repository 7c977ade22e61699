/**
 * The reads behind `fencer agent`'s status, list, list-status and monitor (lib/app/agent): only a
 * machine its provider shows stopped or terminated is off; what is not proven is not known, never off.
 * The provider here is a stand-in answering what the test says (every state the port can report, and
 * failures on demand, which the lab's emulators do not all produce); test/e2e/fence-agent.test.ts runs
 * the same reads against the lab's EC2 emulator.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentDeps,
  listNodeMachines,
  nodePower,
  plugPowerOf,
} from '../../../../lib/app/agent/node-machines.js';
import type {
  InstanceRef,
  OwnershipVerdict,
  PowerEvidence,
  PowerState,
} from '../../../../lib/domain/instance.js';
import type { NodeView } from '../../../../lib/ports/cluster.js';
import type { ComputeFencer } from '../../../../lib/ports/compute-fencer.js';

const AT = '2026-01-01T00:00:00.000Z';
const evidence = (instanceId: string, state: PowerState): PowerEvidence => ({
  instanceId,
  state,
  observedAt: AT,
});

interface World {
  readonly nodes: Record<string, string | undefined>;
  readonly states: Record<string, PowerState>;
  readonly ownership?: OwnershipVerdict;
  readonly failBatch?: boolean;
  readonly batch?: boolean;
}

/** An EC2-like provider owning `i-…` providerIDs, answering from `world`. */
function providerOf(world: World, calls: string[]): ComputeFencer {
  const power = (ref: InstanceRef) => evidence(ref.instanceId, world.states[ref.instanceId] ?? 'not-found');
  const fencer: Partial<ComputeFencer> = {
    provider: 'aws',
    ownsProviderId: (id) => id.startsWith('aws://') || id.startsWith('i-'),
    parseProviderId: (id) => {
      const instanceId = id?.split('/').at(-1) ?? '';
      if (!instanceId.startsWith('i-')) throw new Error(`garbled providerID ${id}`);
      return { provider: 'aws', instanceId };
    },
    inspect: async (ref, cluster) => {
      calls.push(`inspect ${ref.instanceId} ${cluster}`);
      return {
        ownership: world.ownership ?? { owned: true, evidence: `tag kubernetes.io/cluster/${cluster}` },
        power: power(ref),
        identity: null,
      };
    },
    observePower: async (ref) => {
      calls.push(`observe ${ref.instanceId}`);
      return power(ref);
    },
  };
  if (world.batch !== false)
    fencer.observePowerMany = async (refs) => {
      calls.push(`observe-many ${refs.map((r) => r.instanceId).join(' ')}`);
      if (world.failBatch) throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      return { results: new Map(refs.map((r) => [r.instanceId, { ok: true, value: power(r) }])), calls: 1 };
    };
  return fencer as ComputeFencer;
}

function depsOf(world: World, calls: string[] = []): AgentDeps {
  const fencer = providerOf(world, calls);
  const nodes = Object.entries(world.nodes);
  return {
    cluster: {
      getNode: async (name: string) =>
        name in world.nodes ? ({ name, providerId: world.nodes[name] } as unknown as NodeView) : null,
      listNodeProviderIds: async () =>
        nodes.map(([name, providerId]) => ({ name, ...(providerId ? { providerId } : {}) })),
    },
    compute: { forProviderId: (id: string) => (fencer.ownsProviderId(id) ? fencer : null) },
  } as unknown as AgentDeps;
}

describe("a plug's power, from the provider's evidence", () => {
  it.each([
    ['running', 'on'],
    ['pending', 'on'],
    ['stopping', 'on'],
    ['shutting-down', 'on'],
    ['stopped', 'off'],
    ['terminated', 'off'],
    ['not-found', 'unknown'],
    ['unknown', 'unknown'],
  ] as const)('reads %s as %s', (state, kind) => {
    expect(plugPowerOf(evidence('i-1', state)).kind).toBe(kind);
  });
});

describe("one node's power (status)", () => {
  const world: World = {
    nodes: {
      'node-a': 'aws:///eu-west-1a/i-a',
      'node-b': 'aws:///eu-west-1a/i-b',
      metal: undefined,
      odd: 'gce://x/y',
    },
    states: { 'i-a': 'running', 'i-b': 'stopped' },
  };

  it('is on or off as the provider reports it, from one read that checks the cluster too', async () => {
    const calls: string[] = [];
    expect(await nodePower(depsOf(world, calls), 'node-a', 'prod')).toMatchObject({
      kind: 'on',
      instanceId: 'i-a',
    });
    expect(await nodePower(depsOf(world, calls), 'node-b', 'prod')).toMatchObject({
      kind: 'off',
      instanceId: 'i-b',
    });
    expect(calls).toEqual(['inspect i-a prod', 'inspect i-b prod']);
  });

  it('is not known, saying why, for a missing node, no providerID, no provider, or a machine the provider forgot', async () => {
    const deps = depsOf({ ...world, nodes: { ...world.nodes, gone: 'aws:///eu-west-1a/i-gone' } });
    expect(await nodePower(deps, 'node-z', 'prod')).toMatchObject({
      kind: 'unknown',
      detail: 'node node-z not found',
    });
    expect(await nodePower(deps, 'metal', 'prod')).toMatchObject({
      kind: 'unknown',
      detail: 'node metal has no providerID',
    });
    expect(await nodePower(deps, 'odd', 'prod')).toMatchObject({
      kind: 'unknown',
      detail: /no configured provider/,
    });
    expect(await nodePower(deps, 'gone', 'prod')).toMatchObject({
      kind: 'unknown',
      detail: 'the provider does not know instance i-gone',
    });
  });

  it("is not known for a machine that is not the cluster's, even when the provider shows it stopped", async () => {
    const deps = depsOf({
      ...world,
      ownership: { owned: false, reason: 'wrong-cluster', detail: 'tagged kubernetes.io/cluster/other' },
    });
    expect(await nodePower(deps, 'node-b', 'prod')).toMatchObject({
      kind: 'unknown',
      detail: "instance i-b is not cluster prod's (wrong-cluster: tagged kubernetes.io/cluster/other)",
    });
  });
});

describe('every node (list, list-status, monitor)', () => {
  const world: World = {
    nodes: { 'node-b': 'aws:///eu-west-1a/i-b', 'node-a': 'i-a', metal: undefined },
    states: { 'i-a': 'running', 'i-b': 'stopped' },
  };

  it('lists the nodes by name with their instance ids, asking the provider nothing', async () => {
    const calls: string[] = [];
    expect(await listNodeMachines(depsOf(world, calls), { withPower: false })).toEqual([
      { node: 'metal', instanceId: null },
      { node: 'node-a', instanceId: 'i-a' },
      { node: 'node-b', instanceId: 'i-b' },
    ]);
    expect(calls).toEqual([]);
  });

  it("adds each machine's power from one batch read", async () => {
    const calls: string[] = [];
    const rows = await listNodeMachines(depsOf(world, calls), { withPower: true });
    expect(rows.map((r) => [r.node, r.power?.kind])).toEqual([
      ['metal', 'unknown'],
      ['node-a', 'on'],
      ['node-b', 'off'],
    ]);
    expect(calls).toEqual(['observe-many i-a i-b']);
    expect(rows[0]?.power).toMatchObject({ detail: 'node metal has no providerID' });
    expect(rows[0]?.power).not.toHaveProperty('fault');
  });

  it('asks one machine at a time a provider without a batch read', async () => {
    const calls: string[] = [];
    const rows = await listNodeMachines(depsOf({ ...world, batch: false }, calls), { withPower: true });
    expect(rows.map((r) => r.power?.kind)).toEqual(['unknown', 'on', 'off']);
    expect(calls.sort()).toEqual(['observe i-a', 'observe i-b']);
  });

  it('marks the machines a failed provider call left unanswered as faults, which monitor reports', async () => {
    const rows = await listNodeMachines(depsOf({ ...world, failBatch: true }), { withPower: true });
    const faults = rows.filter((r) => r.power?.kind === 'unknown' && r.power.fault);
    expect(faults.map((r) => r.node)).toEqual(['node-a', 'node-b']);
    expect(faults[0]?.power).toMatchObject({
      detail: /did not answer for i-a \(ThrottlingException: Rate exceeded\)/,
    });
  });
});
