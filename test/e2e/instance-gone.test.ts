/**
 * Not found is proof of off once the run committed (SAFETY.md rule 1), never another account (rule 3):
 * the fencer commits to node-a's instance and asks for its stop; meanwhile the instance is terminated
 * and EC2 forgets it (as EC2 does about an hour after a termination; the fault injector answers
 * `InvalidInstanceID.NotFound` for it, moto alone would keep showing it `terminated`). The run takes
 * the forgotten instance as gone and fences, naming `InstanceGone`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminateInstance } from '../../lab/ec2-emulator.js';
import type { Lab } from '../../lab/lab.js';
import { labWithCutNode } from '../support/cut-node.js';
import { killFencers, OUT_OF_SERVICE, startTracked, taintsOn } from './adversarial/support.js';

describe('an instance EC2 forgets after the run committed to it', () => {
  let lab: Lab;
  let instanceId: string;

  beforeAll(async () => {
    ({ lab } = await labWithCutNode({ nodes: 3 }));
    instanceId = lab.node('node-a').instanceId;
  });
  afterAll(async () => {
    killFencers();
    await lab?.stop();
  });

  it('is proof of off: the run fences, naming InstanceGone, and never refuses WrongAccount', async () => {
    // The stop is held (moto keeps the machine running, EC2 says `stopping`) until the machine is gone.
    const held = lab.ec2Faults.inject({ kind: 'stopping', instanceId, stopInstances: 'hold' });
    const run = startTracked(lab, [
      'fence',
      'node-a',
      '--lease-grace',
      '40',
      '--output',
      'json',
      '--timeout',
      '240',
    ]);
    await lab.ec2Faults.waitForRequest((r) => r.action === 'StopInstances' && !r.dryRun, 120_000);
    await terminateInstance(lab.ec2.client, instanceId);
    lab.ec2Faults.inject({ kind: 'forgotten', instanceId });
    held.remove();

    const { code, report } = await run.done;

    expect(report?.reason).not.toBe('WrongAccount');
    expect(report?.outcome).toBe('fenced');
    expect(code).toBe(0);
    expect(report?.proofOfOff).toMatchObject({ instanceId, state: 'not-found' });
    expect(report?.evidence.join('\n')).toMatch(/proof of off \(InstanceGone/);
    expect(await taintsOn(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    // The fencer's view was EC2's forgetting one: every read of the instance after it went answered NotFound.
    const forgotten = lab.ec2Faults.requests().filter((r) => r.faults.includes(`forgotten ${instanceId}`));
    expect(forgotten.length).toBeGreaterThan(0);
  });
});
