/**
 * Adversarial: SAFETY.md rule 1 (proof before release), rule 7 (re-entrant) and rule 9 (every failure
 * is loud), against a provider that misbehaves: a stop that never completes, throttling to exhaustion,
 * a CLI killed right after its power-off reached EC2. The fault injector stages what moto cannot; moto's
 * own state, the injector's log and the API server's audit log say what the fencer really did.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startInstance } from '../../../lab/ec2-emulator.js';
import type { Lab } from '../../../lab/lab.js';
import { attachmentsOf, type StatefulApp } from '../../../lab/scenarios/stateful-app.js';
import { labWithCutNode } from '../../support/cut-node.js';
import { dropClaims } from './staging.js';
import {
  auditMark,
  fence,
  fencerEventsOn,
  instanceState,
  killFencers,
  OUT_OF_SERVICE,
  powerOffsOf,
  startTracked,
  taintsOn,
  writesSince,
} from './support.js';

/** What would release node-a's volume: a taint or annotation on it, a pod or VolumeAttachment deleted. */
const releasesSince = (lab: Lab, mark: number) =>
  writesSince(lab, mark).filter((w) => /^(patch|update) nodes|^delete (pods|volumeattachments)/.test(w));

describe('adversarial: proof before release, re-entry, loud failures (SAFETY.md rules 1, 7, 9)', () => {
  let lab: Lab;
  let app: StatefulApp;
  let instanceId: string;

  beforeAll(async () => {
    // The database on node-a, node-a cut: its pod and VolumeAttachment are what a release would free.
    ({ lab, app } = await labWithCutNode({ nodes: 3 }));
    instanceId = lab.node('node-a').instanceId;
  });
  beforeEach(async () => {
    lab.ec2Faults.clear();
    lab.ec2Faults.resetRequests();
    // Each scenario starts from node-a cut with its machine running and no run in flight.
    if ((await instanceState(lab, instanceId)) !== 'running') await startInstance(lab.ec2.client, instanceId);
    await dropClaims(lab);
  });
  afterAll(async () => {
    killFencers();
    await lab?.stop();
  });

  it('never releases on a stop that stays "stopping": fails PowerOffNotConfirmed with no taint and no pod deleted', async () => {
    lab.ec2Faults.inject({ kind: 'stopping', instanceId });
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-a', ['--power-off-deadline', '20', '--timeout', '120']);

    expect(releasesSince(lab, mark)).toEqual([]);
    expect(await taintsOn(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
    expect((await attachmentsOf(lab, app.pvName)).has('node-a')).toBe(true);
    expect(report?.proofOfOff ?? null).toBeNull();
    // The fencer did ask for the power-off; every answer it got after that said `stopping`.
    expect(powerOffsOf(lab, instanceId).length).toBeGreaterThan(0);
    expect(report?.reason).toBe('PowerOffNotConfirmed');
    expect(code).toBe(4);
  });

  it('releases nothing while EC2 throttles every call, and fails naming the throttling', async () => {
    lab.ec2Faults.inject({ kind: 'throttle', action: '*' });
    const mark = auditMark(lab);

    const { code, report } = await fence(lab, 'node-a', ['--power-off-deadline', '20', '--timeout', '120']);

    expect(powerOffsOf(lab, instanceId).filter((r) => r.status === 200)).toEqual([]);
    expect(await instanceState(lab, instanceId)).toBe('running');
    expect(releasesSince(lab, mark)).toEqual([]);
    expect(await taintsOn(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
    expect((await attachmentsOf(lab, app.pvName)).has('node-a')).toBe(true);
    // Every call the fencer made was answered RequestLimitExceeded: nothing it saw was evidence.
    const calls = lab.ec2Faults.requests();
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((r) => r.errorCode !== 'RequestLimitExceeded')).toEqual([]);
    // Polite under throttling: one provider read per step (each retried at most by the SDK's three
    // attempts), never the three reads and five retries that tripled the load on a refusing API.
    const steps = report?.steps.length ?? 0;
    expect(steps).toBeGreaterThan(0);
    expect(calls.filter((r) => r.action === 'DescribeInstances').length).toBeLessThanOrEqual(3 * steps);
    expect(calls.filter((r) => r.action !== 'DescribeInstances')).toEqual([]);
    expect(report?.outcome).toBe('failed');
    expect(code).toBe(4);
    expect(report?.reason).toBe('ProviderThrottled');
  });

  it('leaves a loud Event on the node when every power-off call is throttled, even if the step cannot finish', async () => {
    lab.ec2Faults.inject({ kind: 'throttle', action: 'StopInstances' });
    const before = (await fencerEventsOn(lab, 'node-a')).length;

    const { code } = await fence(lab, 'node-a', ['--timeout', '60']);

    expect(await instanceState(lab, instanceId)).toBe('running');
    expect(await taintsOn(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
    expect(code).toBe(4);
    // The step throws out of its power-off before it can audit: the contract's StepError, an Event with
    // reason FencingError. A design that turns the throttled call into a decision instead must still
    // name it (ProviderThrottled) in a Warning Event, and a run that gives up at its timeout says so in
    // one (FencingTimedOut) naming the error that kept its step from deciding: either way the failure
    // is on the node, with a code.
    const events = (await fencerEventsOn(lab, 'node-a')).slice(before);
    const loud = events.filter(
      (e) =>
        e.type === 'Warning' &&
        (e.reason === 'FencingError' ||
          e.message.includes('ProviderThrottled') ||
          (e.reason === 'FencingTimedOut' && /RequestLimitExceeded|throttl/i.test(e.message))),
    );
    expect(events).not.toEqual([]);
    expect(loud).not.toEqual([]);
  });

  it('finishes the fence after the CLI is killed right after its power-off reached EC2, with no second stop of a running machine', async () => {
    // EC2 carries the stop out, but the answer never reaches the first run: it is killed meanwhile.
    lab.ec2Faults.inject({ kind: 'latency', action: 'StopInstances', delayMs: 60_000, when: 'after' });
    const first = startTracked(lab, ['fence', 'node-a', '--lease-grace', '40', '--output', 'json']);
    await lab.ec2Faults.waitForRequest((r) => r.action === 'StopInstances' && !r.dryRun, 120_000);
    first.child.kill('SIGKILL');
    await first.done;
    lab.ec2Faults.clear();
    expect(await taintsOn(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
    // The killed run's claim would hold the rerun for its whole TTL; an operator clears it.
    await dropClaims(lab);
    const lastCallOfFirstRun = lab.ec2Faults.requests().at(-1)?.seq ?? 0;

    const rerun = await fence(lab, 'node-a');

    const stopsOfRunning = lab.ec2Faults
      .requests()
      .filter(
        (r) => r.action === 'StopInstances' && !r.dryRun && r.previousStates?.[instanceId] === 'running',
      );
    expect(stopsOfRunning.filter((r) => r.seq > lastCallOfFirstRun)).toEqual([]);
    expect(stopsOfRunning).toHaveLength(1);
    expect(await instanceState(lab, instanceId)).toBe('stopped');
    expect(rerun.report?.outcome).toBe('fenced');
    expect(rerun.code).toBe(0);
    expect(await taintsOn(lab, 'node-a')).toContain(OUT_OF_SERVICE);
  });
});
