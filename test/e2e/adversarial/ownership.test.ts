/**
 * Adversarial: SAFETY.md rule 5 (taint, don't delete) and rule 6 (own what you touch). Other parties
 * put out-of-service taints on the node around the fencer's own: one with another value after the
 * fencer's was removed by hand (its fence record left behind), one with the same key but `NoSchedule`.
 * The fencer must release through its own taint only and remove exactly that taint, nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../lab/kube-wait.js';
import type { Lab } from '../../../lab/lab.js';
import { addTaintByHand, waitNodeNotReady } from '../../../lab/scenarios/incident.js';
import { attachmentsOf, type StatefulApp } from '../../../lab/scenarios/stateful-app.js';
import { LEASE_GRACE_SECONDS, labWithCutNode } from '../../support/cut-node.js';
import { waitKubeletSilentFor, waitNodeReady } from '../../support/lab-waits.js';
import { removeTaintsByHand } from './staging.js';
import { auditMark, fence, fencer, killFencers, OUT_OF_SERVICE, taintsOn, writesSince } from './support.js';

const KEY = 'node.kubernetes.io/out-of-service';
const SOMEONE_ELSES_NO_EXECUTE = `${KEY}=operator-maintenance:NoExecute`;
const SOMEONE_ELSES_NO_SCHEDULE = `${KEY}=drain-by-operator:NoSchedule`;

describe('adversarial: taint, never delete; touch only what is yours (SAFETY.md rules 5 and 6)', () => {
  let lab: Lab;
  let app: StatefulApp;

  beforeAll(async () => {
    // Six workers, so that one cut node and one restoring stay well under the unhealthy limits.
    ({ lab, app } = await labWithCutNode({ nodes: 6 }));
  });
  afterAll(async () => {
    killFencers();
    await lab?.stop();
  });

  it('fences through the taint without deleting any VolumeAttachment or Node', async () => {
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-a');

    expect(code).toBe(0);
    expect(report?.outcome).toBe('fenced');
    // Kubernetes itself releases the volume once the node is tainted: node-a's attachment goes away.
    await eventually(`VolumeAttachment of ${app.pvName} on node-a gone`, async () =>
      (await attachmentsOf(lab, app.pvName)).has('node-a') ? undefined : true,
    );
    const writes = writesSince(lab, mark);
    expect(writes.filter((w) => /^(delete|deletecollection) (volumeattachments|nodes)/.test(w))).toEqual([]);
    expect(writes.filter((w) => /^(patch|update) nodes node-a$/.test(w)).length).toBeGreaterThan(0);
  });

  it("refuses to remove someone else's out-of-service taint that replaced its own (record left behind)", async () => {
    // The fencer's taint is removed by hand, its fence record stays; later another party taints the node
    // out-of-service with another value. Then node-a comes back after a power cycle.
    await removeTaintsByHand(lab, 'node-a', (t) => t === OUT_OF_SERVICE);
    await addTaintByHand(lab, 'node-a', { key: KEY, value: 'operator-maintenance', effect: 'NoExecute' });
    await lab.restore('node-a');
    await waitNodeReady(lab, 'node-a');
    expect(await taintsOn(lab, 'node-a')).toContain(SOMEONE_ELSES_NO_EXECUTE);

    try {
      const { code, report } = await fencer(lab, ['unfence', 'node-a', '--wait', '30']);

      expect(await taintsOn(lab, 'node-a')).toContain(SOMEONE_ELSES_NO_EXECUTE);
      expect(report?.reason).toBe('TaintNotOwned');
      expect(code).toBe(3);
    } finally {
      await removeTaintsByHand(lab, 'node-a', (t) => t.startsWith(`${KEY}=`));
    }
  });

  // Cut, fence, restore, un-fence: two fencer runs and two node transitions on a busy machine.
  it('leaves a NoSchedule out-of-service taint someone else added untouched through fence and unfence', {
    timeout: 420_000,
  }, async () => {
    await addTaintByHand(lab, 'node-c', { key: KEY, value: 'drain-by-operator', effect: 'NoSchedule' });
    await lab.cut('node-c');
    await waitNodeNotReady(lab, 'node-c');
    // Two seconds past the grace: the fencer ages the Lease on the API server's Date, to the second.
    await waitKubeletSilentFor(lab, 'node-c', LEASE_GRACE_SECONDS + 2);

    const fenced = await fence(lab, 'node-c', ['--drain-deadline', '60']);

    // The outcome first, with the whole report, so that a refusal names its reason.
    expect(fenced.report?.outcome, JSON.stringify(fenced.report)).toBe('fenced');
    expect(fenced.code).toBe(0);
    // The fencer releases through its own NoExecute taint, added beside the other party's.
    expect(await taintsOn(lab, 'node-c')).toEqual(
      expect.arrayContaining([SOMEONE_ELSES_NO_SCHEDULE, OUT_OF_SERVICE]),
    );

    await lab.restore('node-c');
    await waitNodeReady(lab, 'node-c');
    const unfenced = await fencer(lab, ['unfence', 'node-c', '--wait', '60']);

    expect(await taintsOn(lab, 'node-c')).toContain(SOMEONE_ELSES_NO_SCHEDULE);
    expect(await taintsOn(lab, 'node-c')).not.toContain(OUT_OF_SERVICE);
    expect(unfenced.report?.outcome).toBe('unfenced');
    expect(unfenced.code).toBe(0);
  });
});
