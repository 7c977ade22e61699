/**
 * Adversarial: SAFETY.md rule 2 (never fence a live node) and rule 3 (right instance). Each scenario
 * hands the real `fencer` a Node that tempts it to power off a machine that is running, or that is not
 * the cluster's, and checks from moto's state, the fault injector's log of EC2 calls and the API server's
 * audit log that it did not. Safety is asserted before the reason code, so a scenario that fails because
 * the fencer broke the rule says so first.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClusterInstance, terminateInstance } from '../../../lab/ec2-emulator.js';
import { type Lab, startLab } from '../../../lab/lab.js';
import { waitNodeNotReady } from '../../../lab/scenarios/incident.js';
import { LEASE_GRACE_SECONDS } from '../../support/cut-node.js';
import { waitKubeletSilentFor } from '../../support/lab-waits.js';
import { createNodeByHand, keepLeaseFresh, repairNode, setInternalIp, setLeaseRenewed } from './staging.js';
import {
  auditMark,
  fence,
  instanceState,
  killFencers,
  powerOffsOf,
  taintsOn,
  writesSince,
} from './support.js';

/** Node writes (taint, annotations) and deletions the fencer made since `mark`. */
const releasesSince = (lab: Lab, mark: number) =>
  writesSince(lab, mark).filter((w) => /^(patch|update) nodes|^delete/.test(w));

describe('adversarial: never a live node, only the right instance (SAFETY.md rules 2 and 3)', () => {
  let lab: Lab;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    // Five workers: one cut plus one hand-made Node at a time stay under the 40 % unhealthy limit.
    lab = await startLab({ nodes: 5 });
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    await waitKubeletSilentFor(lab, 'node-a', LEASE_GRACE_SECONDS + 1);
  });
  afterEach(async () => {
    lab.ec2Faults.clear();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    killFencers();
    await lab?.stop();
  });

  it("refuses a stale Node that names a live node's instance", async () => {
    const b = lab.node('node-b');
    cleanups.push(() => repairNode(lab, 'node-b', b.instanceId));
    // What a node re-registered under a new name leaves behind: a dead Node with node-b's machine.
    cleanups.push(
      await createNodeByHand(lab, {
        name: 'node-b-old',
        providerID: b.providerID,
        zone: b.zone,
        privateIp: b.privateIp,
        privateDnsName: b.privateDnsName,
        csiNodeId: b.instanceId,
        life: 'dead',
      }),
    );
    lab.ec2Faults.resetRequests();
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-b-old');

    expect(powerOffsOf(lab, b.instanceId)).toEqual([]);
    expect(await instanceState(lab, b.instanceId)).toBe('running');
    expect(releasesSince(lab, mark)).toEqual([]);
    expect(report?.reason).toBe('InstanceClaimedByOtherNode');
    expect(code).toBe(3);
  });

  it('refuses a Node that was never seen alive (no Lease, no heartbeat) naming a spare instance of the cluster', async () => {
    const spare = await createClusterInstance(lab.ec2.client, {
      cluster: lab.cluster,
      zone: lab.node('node-a').zone,
      name: 'spare',
    });
    cleanups.push(() => terminateInstance(lab.ec2.client, spare.instanceId));
    // Its addresses are the spare's, so nothing but the missing signs of life is wrong with it.
    cleanups.push(
      await createNodeByHand(lab, {
        name: 'node-ghost',
        providerID: spare.providerId,
        zone: spare.zone,
        privateIp: spare.privateIp,
        privateDnsName: spare.privateDnsName,
        life: 'never',
      }),
    );
    lab.ec2Faults.resetRequests();
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-ghost');

    expect(powerOffsOf(lab, spare.instanceId)).toEqual([]);
    expect(await instanceState(lab, spare.instanceId)).toBe('running');
    expect(releasesSince(lab, mark)).toEqual([]);
    expect(report?.reason).toBe('NeverSeenAlive');
    expect(code).toBe(3);
  });

  /** node-a stays NotReady with a stale status heartbeat, but its kubelet renews the Lease every second. */
  const leaseOnlyKubelet = (): void => {
    const a = lab.node('node-a');
    const stop = keepLeaseFresh(lab, 'node-a');
    cleanups.push(async () => {
      await stop();
      await repairNode(lab, 'node-a', a.instanceId);
      await setLeaseRenewed(lab, 'node-a', 300);
    });
  };

  it('refuses a NotReady node whose kubelet still renews its Lease (control for the slow provider)', async () => {
    // The staging of the next scenario without its latency: it must be a refusal already, so that the
    // next scenario fails (if it does) because of the slow provider alone.
    leaseOnlyKubelet();
    lab.ec2Faults.resetRequests();

    const { code, report } = await fence(lab, 'node-a');

    expect(powerOffsOf(lab, lab.node('node-a').instanceId)).toEqual([]);
    expect(report?.reason).toBe('LeaseFresh');
    expect(code).toBe(3);
  });

  // Every provider read takes 12 s: a run takes several of them (today it goes on to power node-a off).
  it('refuses a node whose Lease was fresh when read, however slowly EC2 answers', {
    timeout: 420_000,
  }, async () => {
    const a = lab.node('node-a');
    leaseOnlyKubelet();
    // EC2 answers every DescribeInstances 12 s late (under the SDK's 15 s socket timeout, so the calls
    // succeed): aged against the end of a step's several such calls instead of the time it was read, a
    // Lease renewed a second before the read looks older than the 40 s grace.
    lab.ec2Faults.inject({ kind: 'latency', action: 'DescribeInstances', delayMs: 12_000 });
    lab.ec2Faults.resetRequests();
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-a');

    expect(powerOffsOf(lab, a.instanceId)).toEqual([]);
    expect(await instanceState(lab, a.instanceId)).toBe('running');
    expect(releasesSince(lab, mark)).toEqual([]);
    expect(report?.reason).toBe('LeaseFresh');
    expect(code).toBe(3);
  });

  it("refuses a node whose InternalIP is another machine's address", async () => {
    const a = lab.node('node-a');
    cleanups.push(async () => {
      await setInternalIp(lab, 'node-a', a.privateIp);
      await repairNode(lab, 'node-a', a.instanceId);
    });
    // What node-a's kubelet would post if node-a's name now ran on a different machine.
    await setInternalIp(lab, 'node-a', '10.250.0.7');
    lab.ec2Faults.resetRequests();
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-a');

    expect(powerOffsOf(lab, a.instanceId)).toEqual([]);
    expect(await instanceState(lab, a.instanceId)).toBe('running');
    expect(await taintsOn(lab, 'node-a')).not.toContainEqual(expect.stringMatching(/out-of-service/));
    expect(releasesSince(lab, mark)).toEqual([]);
    expect(report?.reason).toBe('IdentityMismatch');
    expect(code).toBe(3);
  });

  it('refuses an instance tagged for another cluster behind a Node that looks like one of ours', async () => {
    const foreign = await createClusterInstance(lab.ec2.client, {
      cluster: 'another-cluster',
      zone: lab.node('node-a').zone,
      name: 'foreign',
    });
    cleanups.push(() => terminateInstance(lab.ec2.client, foreign.instanceId));
    cleanups.push(
      await createNodeByHand(lab, {
        name: 'node-foreign',
        providerID: foreign.providerId,
        zone: foreign.zone,
        privateIp: foreign.privateIp,
        privateDnsName: foreign.privateDnsName,
        csiNodeId: foreign.instanceId,
        life: 'dead',
      }),
    );
    lab.ec2Faults.resetRequests();
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-foreign');

    expect(powerOffsOf(lab, foreign.instanceId)).toEqual([]);
    expect(await instanceState(lab, foreign.instanceId)).toBe('running');
    expect(releasesSince(lab, mark)).toEqual([]);
    expect(report?.reason).toBe('InstanceNotOwned');
    expect(code).toBe(3);
  });

  it('refuses a providerID whose zone lies in another region, and never touches the same id in this one', async () => {
    // An instance of this cluster, in this region, under a providerID that places it in eu-west-1.
    const twin = await createClusterInstance(lab.ec2.client, {
      cluster: lab.cluster,
      zone: lab.node('node-a').zone,
      name: 'twin',
    });
    cleanups.push(() => terminateInstance(lab.ec2.client, twin.instanceId));
    cleanups.push(
      await createNodeByHand(lab, {
        name: 'node-elsewhere',
        providerID: `aws:///eu-west-1a/${twin.instanceId}`,
        zone: 'eu-west-1a',
        privateIp: twin.privateIp,
        privateDnsName: twin.privateDnsName,
        life: 'dead',
      }),
    );
    lab.ec2Faults.resetRequests();
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-elsewhere');

    expect(powerOffsOf(lab, twin.instanceId)).toEqual([]);
    expect(await instanceState(lab, twin.instanceId)).toBe('running');
    expect(releasesSince(lab, mark)).toEqual([]);
    expect(report?.reason).toBe('WrongRegion');
    expect(code).toBe(3);
  });
});
