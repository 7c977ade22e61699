/**
 * Adversarial: SAFETY.md rule 8 (dry run is honest), rule 10 (bad input is an error, nothing mutated),
 * rule 9 (every refusal is loud) and rule 4 (bounded blast radius, under concurrent writers). What the
 * fencer wrote comes from the API server's audit log of user kube-fencer, what it asked EC2 from the
 * fault injector's log, and what is true from moto.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isMutating } from '../../../lab/ec2-faults/index.js';
import { type Lab, startLab } from '../../../lab/lab.js';
import { waitNodeNotReady } from '../../../lab/scenarios/incident.js';
import { KubeCluster } from '../../../lib/adapters/kubernetes/index.js';
import { LEASE_GRACE_SECONDS } from '../../support/cut-node.js';
import { waitKubeletSilentFor } from '../../support/lab-waits.js';
import { createNodeByHand, dropClaims, repairNode, setClusterInFlightLimit } from './staging.js';
import {
  auditMark,
  fence,
  fencerEventsOn,
  instanceState,
  killFencers,
  powerOffsOf,
  writesSince,
} from './support.js';

const FIVE_MINUTES_MS = 5 * 60_000;
/** A claim as another fencer run takes it: limit 1, the contract's 300 s TTL. */
const CLAIM = { ttlSeconds: 300 };
/** An Event names a reason code in its reason or its message. */
const names = (code: string) => (e: { reason: string; message: string }) =>
  `${e.reason} ${e.message}`.includes(code);

describe('adversarial: honest dry run, bad input, loud refusals, bounded blast radius (SAFETY.md rules 8, 10, 9, 4)', () => {
  let lab: Lab;

  beforeAll(async () => {
    lab = await startLab({ nodes: 3 });
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    await waitKubeletSilentFor(lab, 'node-a', LEASE_GRACE_SECONDS + 1);
  });
  afterEach(() => {
    lab.ec2Faults.clear();
    lab.ec2Faults.resetRequests();
  });
  afterAll(async () => {
    killFencers();
    await lab?.stop();
  });

  it('makes no write of any kind on a dry run, and only DryRun calls to EC2', async () => {
    lab.ec2Faults.resetRequests();
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-a', ['--dry-run']);

    expect(await instanceState(lab, lab.node('node-a').instanceId)).toBe('running');
    const mutating = lab.ec2Faults.requests().filter((r) => isMutating(r.action));
    expect(mutating.filter((r) => !r.dryRun)).toEqual([]);
    // The power-off was tried the way EC2 offers: StopInstances with DryRun (so the test is not vacuous).
    expect(mutating.map((r) => `${r.action} ${r.errorCode}`)).toContain('StopInstances DryRunOperation');
    expect(writesSince(lab, mark)).toEqual([]);
    expect(report?.outcome).toBe('dry-run');
    expect(code).toBe(0);
  });

  it('writes nothing at all, not even an Event, when asked to fence a node that does not exist', async () => {
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-zz');

    expect(writesSince(lab, mark)).toEqual([]);
    expect(lab.ec2Faults.requests().filter((r) => isMutating(r.action))).toEqual([]);
    expect(report?.reason).toBe('NodeNotFound');
    expect(code).toBe(3);
  });

  it('refuses a garbled providerID and writes nothing but its refusal Event', async () => {
    const cleanup = await createNodeByHand(lab, {
      name: 'node-garbled',
      providerID: 'aws:///us-east-1a/not-an-instance',
      zone: 'us-east-1a',
      life: 'dead',
    });
    try {
      const mark = auditMark(lab);

      const { code, report } = await fence(lab, 'node-garbled');

      expect(writesSince(lab, mark)).toEqual(['create events']);
      expect(lab.ec2Faults.requests()).toEqual([]);
      const events = await fencerEventsOn(lab, 'node-garbled');
      expect(events).toHaveLength(1);
      expect(events.filter(names('ProviderIdUnparseable'))).toHaveLength(1);
      expect(report?.reason).toBe('ProviderIdUnparseable');
      expect(code).toBe(3);
    } finally {
      await cleanup();
    }
  });

  it('records a refusal as a Warning Event on the node that names its reason code', async () => {
    const before = (await fencerEventsOn(lab, 'node-b')).length;

    const { code, report } = await fence(lab, 'node-b');

    const events = (await fencerEventsOn(lab, 'node-b')).slice(before);
    expect(events.map((e) => e.type)).toEqual(['Warning']);
    expect(events.filter(names('NodeReady'))).toHaveLength(1);
    expect(report?.reason).toBe('NodeReady');
    expect(code).toBe(3);
  });

  it('does not let a writer whose clock runs 5 minutes fast take the last in-flight slot', async () => {
    // A fencer whose clock is right holds the only slot (limit 1, the cluster's) for node-b.
    const holder = new KubeCluster(lab.endpoint);
    const fast = new KubeCluster(lab.endpoint, { now: () => new Date(Date.now() + FIVE_MINUTES_MS) });
    try {
      expect((await holder.claimFencing('node-b', 'run-on-time', CLAIM)).granted).toBe(true);
      await setClusterInFlightLimit(lab, 1);

      const claim = await fast.claimFencing('node-a', 'run-from-the-future', CLAIM);

      expect(claim).toMatchObject({ granted: false, reason: 'in-flight-limit' });
      expect((await holder.listFencingClaims(300)).claims.map((c) => `${c.node} ${c.runId}`)).toEqual([
        'node-b run-on-time',
      ]);
    } finally {
      await dropClaims(lab);
    }
  });

  it("rejects fence --max-in-flight as an unknown option: the in-flight limit is the cluster's", async () => {
    const a = lab.node('node-a');
    const holder = new KubeCluster(lab.endpoint);
    try {
      expect((await holder.claimFencing('node-b', 'run-holding-the-slot', CLAIM)).granted).toBe(true);
      await setClusterInFlightLimit(lab, 1);
      const mark = auditMark(lab);

      // A request that asks for more room than the cluster allows, while the only slot is taken.
      const { code, stderr } = await fence(lab, 'node-a', ['--max-in-flight', '5']);

      expect(powerOffsOf(lab, a.instanceId)).toEqual([]);
      expect(await instanceState(lab, a.instanceId)).toBe('running');
      expect(writesSince(lab, mark)).toEqual([]);
      expect(stderr).toMatch(/unknown option '--max-in-flight'/);
      expect(code).toBe(2);
    } finally {
      await dropClaims(lab);
      await repairNode(lab, 'node-a', a.instanceId);
    }
  });
});
