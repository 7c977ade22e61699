/**
 * A run that ends after its blocklist add but before any release lifts the entries it added (SAFETY.md
 * rules 1 and 6): node-a, a cloud node holding an RBD image, is cut; `fencer fence` blocklists its
 * addresses and asks EC2 to stop its machine, which stays `stopping` past the power-off deadline. The
 * run fails, and before it ends it lifts its own entries: Ceph's own blocklist no longer lists them, an
 * operator's entry on the same address stays, no taint was written, and the machine is still running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../../lab/lab.js';
import { cephOf } from '../../lab/scenarios/rbd-incident.js';
import { labWithCutRbdNode } from '../support/cut-node.js';
import { instanceState, killFencers, OUT_OF_SERVICE, startTracked, taintsOn } from './adversarial/support.js';

/** An exact `<ip>:0/<nonce>` entry someone else added on node-a's address: never the fencer's to lift. */
const FOREIGN_NONCE = 515151;

describe('a fence run that ends after its blocklist, before any release', () => {
  let lab: Lab;

  beforeAll(async () => {
    ({ lab } = await labWithCutRbdNode());
  });
  afterAll(async () => {
    killFencers();
    await lab?.stop();
  });

  it('lifts the entries it added, and only those, when its machine stays stopping past the deadline', {
    timeout: 300_000,
  }, async () => {
    const ceph = cephOf(lab);
    const address = ceph.address('node-a');
    const foreign = `${address}:0/${FOREIGN_NONCE}`;
    await ceph.admin.mon({ prefix: 'osd blocklist', blocklistop: 'add', addr: foreign });
    const instanceId = lab.node('node-a').instanceId;
    lab.ec2Faults.inject({ kind: 'stopping', instanceId, stopInstances: 'hold' });

    const { code, report } = await startTracked(lab, [
      'fence',
      'node-a',
      '--lease-grace',
      '40',
      '--power-off-deadline',
      '15',
      '--output',
      'json',
    ]).done;
    lab.ec2Faults.clear();

    // From Ceph, the API server and EC2 first: nothing of the run is left, nothing was released.
    const listed = (await ceph.blocklist()).map((e) => e.value);
    const added = report?.storageProof?.found.map((e) => e.entry.replace(/\/32$/, ':0/32')) ?? [];
    expect(added).toContain(`${address}:0/32`);
    expect(listed.filter((e) => added.includes(e))).toEqual([]);
    expect(listed).toContain(foreign);
    expect(await taintsOn(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
    expect(await instanceState(lab, instanceId)).toBe('running');
    // The run's own account: blocklisted, asked for the stop, lifted, and failed on the deadline.
    const actions = report?.steps.map((s) => s.action).filter(Boolean);
    expect(actions?.[0]).toBe('storage-fence');
    expect(actions).toContain('power-off');
    expect(actions?.at(-1)).toBe('storage-lift');
    expect(actions).not.toContain('taint');
    expect(report?.storageProof?.confirmed).toBe(true);
    expect(report?.outcome, report?.message).toBe('failed');
    expect(code).not.toBe(0);
  });
});
