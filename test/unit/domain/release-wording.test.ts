/**
 * What the release says it rests on: the proofs the run's plan needed. A node fenced at the storage layer
 * alone (a bare-metal node, or one whose only volumes are RBD images) never had its machine powered off,
 * and its messages must not say so.
 */
import { describe, expect, it } from 'vitest';
import type { BlocklistEvidence } from '../../../lib/domain/blocklist.js';
import type { RunHistory } from '../../../lib/domain/history.js';
import type { IsolationPlan } from '../../../lib/domain/isolation.js';
import type { ObservedStorage } from '../../../lib/domain/observation.js';
import { addTaint, drained, toleratingPods } from '../../../lib/domain/rules/release.js';
import {
  aPod,
  aRequest,
  checkFence,
  committedHistory,
  NODE,
  NODE_IP,
  provenHistory,
  ROOT_DISK,
  type Spec,
  stopped,
  t,
  taintedNode,
} from './support/fixtures.js';

const RANGE = `${NODE_IP}/32`;
const entry = { kind: 'range' as const, entry: RANGE, source: `InternalIP ${NODE_IP}` };
const confirmed = (at: number): BlocklistEvidence => ({
  node: NODE,
  observedAt: t(at),
  expected: [entry],
  found: [{ ...entry, until: t(7 * 86_400) }],
  missing: [],
  related: [],
  confirmed: true,
});
const storage = (at: number): ObservedStorage => ({
  storage: 'ceph-rbd',
  addresses: [NODE_IP],
  declared: [],
  declaredError: null,
  otherNodesSharingAddresses: [],
  conflicts: [],
  blocklist: { ok: true, value: confirmed(at) },
});

/** A run that committed at t(10) with `plan`, holding the proofs that plan needs. */
const provenWith = (plan: IsolationPlan): RunHistory => ({
  ...(plan.machine ? provenHistory() : { ...committedHistory(), powerOffRequestedAt: null }),
  isolation: plan,
  storageProof: plan.storage ? confirmed(20) : null,
});

const bareMetal: Spec = {
  node: { providerId: null },
  instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
};

const PLANS = {
  machine: { machine: true, storage: false, watch: false },
  storage: { machine: false, storage: true, watch: false },
  both: { machine: true, storage: true, watch: false },
} as const;

describe('the release names the proofs it rests on', () => {
  it.each([
    ['machine', 'The instance is proven off; tainting'],
    ['storage', "The node's storage clients are proven blocklisted; tainting"],
    ['both', "The instance is proven off and the node's storage clients are proven blocklisted; tainting"],
  ] as const)('add-taint, plan %s', (plan, text) => {
    const spec: Spec = {
      at: 60,
      storage: storage(60),
      ...(plan === 'storage' ? bareMetal : { power: stopped(60) }),
    };
    const verdict = checkFence(addTaint, spec, aRequest(), provenWith(PLANS[plan]));
    expect(verdict).toMatchObject({ phase: 'Taint', action: { kind: 'taint' } });
    expect(verdict).toHaveProperty('message', expect.stringContaining(text));
  });

  it.each([
    ['machine', 'is fenced: instance off, no pod'],
    ['storage', 'is fenced: storage clients blocklisted, no pod'],
    ['both', 'is fenced: instance off, storage clients blocklisted, no pod'],
  ] as const)('the final message, plan %s', (plan, text) => {
    const spec: Spec = {
      at: 90,
      storage: storage(90),
      node: taintedNode(plan === 'storage' ? { providerId: null } : {}),
      pods: [],
      volumeAttachments: [],
      disks: [ROOT_DISK],
      ...(plan === 'storage' ? { instance: bareMetal.instance } : { power: stopped(90) }),
    };
    const history = { ...provenWith(PLANS[plan]), taintedAt: t(50) };
    const verdict = checkFence(drained, spec, aRequest(), history);
    expect(verdict).toMatchObject({ phase: 'Fenced' });
    expect(verdict).toHaveProperty('message', expect.stringContaining(text));
  });

  it('a node released by someone else’s taint: says its blocklist entries are not recorded, and how to lift them', () => {
    const theirs = {
      key: 'node.kubernetes.io/out-of-service',
      value: 'by-hand',
      effect: 'NoExecute',
      timeAdded: '2026-03-01T11:59:00Z',
    };
    const spec: Spec = {
      at: 90,
      storage: storage(90),
      ...bareMetal,
      node: { providerId: null, outOfServiceTaints: [theirs], fenceRecord: null },
      pods: [],
      volumeAttachments: [],
    };
    const verdict = checkFence(drained, spec, aRequest(), provenWith(PLANS.storage));
    expect(verdict).toMatchObject({ phase: 'Fenced' });
    expect(verdict).toHaveProperty('message', expect.stringContaining(`entries it added (${RANGE})`));
    expect(verdict).toHaveProperty(
      'message',
      expect.stringContaining(`ceph osd blocklist range rm ${RANGE}`),
    );

    // On a cluster without ranges the entry is IP-wide, and its command has no `range`.
    const address = `${NODE_IP}:0/0`;
    const addressProof = {
      ...confirmed(20),
      expected: [{ ...entry, kind: 'address' as const, entry: address }],
      found: [{ ...entry, kind: 'address' as const, entry: address, until: t(7 * 86_400) }],
    };
    const byAddress = checkFence(drained, spec, aRequest(), {
      ...provenWith(PLANS.storage),
      storageProof: addressProof,
    });
    expect(byAddress).toHaveProperty('message', expect.stringContaining(`ceph osd blocklist rm ${address}`));

    // Two entries: each named, each with its own command.
    const second = { ...entry, entry: '10.77.0.9/32', source: 'InternalIP 10.77.0.9' };
    const twoProof = {
      ...confirmed(20),
      expected: [entry, second],
      found: [entry, second].map((e) => ({ ...e, until: t(7 * 86_400) })),
    };
    const two = checkFence(drained, spec, aRequest(), {
      ...provenWith(PLANS.storage),
      storageProof: twoProof,
    });
    expect(two).toHaveProperty('message', expect.stringContaining(`(${RANGE}, 10.77.0.9/32)`));
    expect(two).toHaveProperty(
      'message',
      expect.stringContaining(
        `(ceph osd blocklist range rm ${RANGE}; ceph osd blocklist range rm 10.77.0.9/32)`,
      ),
    );

    // Entries listed before the run committed are someone else's: nothing of the fencer's to lift.
    const before = checkFence(drained, spec, aRequest(), {
      ...provenWith(PLANS.storage),
      storageBefore: [RANGE],
    });
    expect(before).toMatchObject({ phase: 'Fenced' });
    expect(before).toHaveProperty('message', expect.stringMatching(/no VolumeAttachment or disk left\.$/));

    const ours = checkFence(drained, { ...spec, node: taintedNode({ providerId: null }) }, aRequest(), {
      ...provenWith(PLANS.storage),
      taintedAt: t(50),
    });
    expect(ours).toHaveProperty('message', expect.not.stringContaining('not recorded'));
    expect(ours).toHaveProperty('message', expect.not.stringContaining('by hand'));
  });

  it('a tolerating pod on a node fenced at the storage layer: no word of an instance', () => {
    const spec: Spec = {
      at: 90,
      storage: storage(90),
      ...bareMetal,
      node: taintedNode({ providerId: null }),
      pods: [aPod('db-0', { claimNames: ['data-db-0'], toleratesOutOfService: true })],
    };
    const verdict = checkFence(toleratingPods, spec, aRequest(), {
      ...provenWith(PLANS.storage),
      taintedAt: t(50),
    });
    expect(verdict).toMatchObject({ phase: 'Failed', reason: 'PodToleratesOutOfService' });
    expect(JSON.stringify(verdict)).toContain(
      "The node's storage clients are proven blocklisted and the node tainted",
    );
    expect(JSON.stringify(verdict)).not.toContain('instance');
  });
});
