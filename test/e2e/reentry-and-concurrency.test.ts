/**
 * A fence run killed between the power-off and the taint is finished by a rerun; two runs on the
 * same node at once power it off once and taint it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeInstanceState } from '../../lab/ec2-emulator.js';
import type { Lab } from '../../lab/lab.js';
import { waitForRecovery, waitPodTerminating } from '../../lab/scenarios/incident.js';
import type { StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { labWithCutNode } from '../support/cut-node.js';
import { runFencer, startFencer } from '../support/fencer-cli.js';
import { taintsOf } from '../support/lab-waits.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';

describe('re-entry', () => {
  let lab: Lab;
  let app: StatefulApp;
  beforeAll(async () => {
    ({ lab, app } = await labWithCutNode());
    // The eviction of node-a's pod would wake the run early from its wait after the power-off;
    // once it is Terminating, nothing changes node-a before the taint and the kill lands in time.
    await waitPodTerminating(lab, app, 'node-a');
  });
  afterAll(async () => {
    await lab?.stop();
  });

  // Up to 90 s of the killed run's claim (a CLI run's TTL), then the rerun and the recovery.
  it('finishes the fence when a run is killed after the power-off and before the taint', {
    timeout: 480_000,
  }, async () => {
    let killed = false;
    const first = startFencer(lab, ['fence', 'node-a', '--lease-grace', '40'], (line) => {
      // The step line of the power-off: the instance has been asked to stop, the taint is not on yet.
      if (!killed && line.includes('stop requested')) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    });
    await first.done;
    expect(killed).toBe(true);
    expect(await describeInstanceState(lab.ec2.client, lab.node('node-a').instanceId)).toBe('stopped');
    expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);

    const rerun = await runFencer(lab, ['fence', 'node-a', '--lease-grace', '40', '--output', 'json']);
    expect(rerun.code).toBe(0);
    expect(rerun.report?.outcome).toBe('fenced');
    // The rerun found the instance already off: it asked EC2 for nothing more.
    expect(rerun.report?.steps.filter((s) => s.actionResult?.includes('stop requested'))).toEqual([]);
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    await waitForRecovery(lab, app, 'node-a', 'node-b');
  });
});

describe('concurrency', () => {
  let lab: Lab;
  beforeAll(async () => {
    ({ lab } = await labWithCutNode());
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('gives one power-off and one taint when two runs fence the same node at once', async () => {
    const args = ['fence', 'node-a', '--lease-grace', '40', '--output', 'json'];
    const [a, b] = await Promise.all([runFencer(lab, args), runFencer(lab, args)]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const steps = [...(a.report?.steps ?? []), ...(b.report?.steps ?? [])];
    expect(steps.filter((s) => s.actionResult?.includes('stop requested'))).toHaveLength(1);
    expect(steps.filter((s) => s.actionResult?.includes('taint added'))).toHaveLength(1);
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
  });
});
