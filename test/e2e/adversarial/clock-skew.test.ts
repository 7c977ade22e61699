/**
 * Adversarial: SAFETY.md rule 2 (never fence a live node) when a clock is wrong. The real `fencer` CLI
 * runs under libfaketime (Debian's `faketime`), its clock minutes fast or slow, against a node that looks
 * lost (NotReady, stale status heartbeat) while its Lease is renewed every second, and against a node that
 * is truly silent. A Lease's age is measured on the API server's clock, so neither skew moves the
 * decision: fresh is refused `LeaseFresh` with nothing stopped and nothing written, silent is fenced. And
 * the kubelet's clock five minutes slow: each renewTime it writes looks old, but the API server stamps
 * each write on its own clock, and that stamp says the kubelet is alive. Asserted from the EC2 emulator's
 * log and state and from the API server's audit log first.
 */
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../lab/lab.js';
import { waitNodeNotReady } from '../../../lab/scenarios/incident.js';
import { LEASE_GRACE_SECONDS } from '../../support/cut-node.js';
import { waitKubeletSilentFor } from '../../support/lab-waits.js';
import { keepLeaseFresh, setLeaseRenewed } from './staging.js';
import {
  auditMark,
  instanceState,
  killFencers,
  LIBFAKETIME,
  OUT_OF_SERVICE,
  powerOffsOf,
  skewedClock,
  startTracked,
  taintsOn,
  writesSince,
} from './support.js';

/** `fencer fence node-a --lease-grace 40 --output json`, its clock skewed by `offset`. */
const fenceSkewed = (lab: Lab, offset: string) =>
  startTracked(
    lab,
    ['fence', 'node-a', '--lease-grace', String(LEASE_GRACE_SECONDS), '--output', 'json'],
    undefined,
    skewedClock(offset),
  ).done;

/** Node writes and deletions the fencer made since `mark`. */
const releasesSince = (lab: Lab, mark: number) =>
  writesSince(lab, mark).filter((w) => /^(patch|update) nodes|^delete/.test(w));

/** node-a untouched since `mark`: no power-off asked of EC2, still running, no Node write, no taint. */
async function expectNothingDone(lab: Lab, mark: number): Promise<void> {
  const a = lab.node('node-a');
  expect(powerOffsOf(lab, a.instanceId)).toEqual([]);
  expect(await instanceState(lab, a.instanceId)).toBe('running');
  expect(releasesSince(lab, mark)).toEqual([]);
  expect(await taintsOn(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
}

describe('adversarial: a clock that is wrong, the fencer’s or the kubelet’s (SAFETY.md rule 2)', () => {
  let lab: Lab;
  /**
   * When the lab was ready. A clock 90 s slow must not read a time before what the lab made while
   * starting: its certificates (TLS would fail, not the rule) and node-a's instance (launched "after"
   * the decision on that clock: the run would stop it and then refuse it InstanceStartedAgain, reading
   * the provider's launch time the safe way round).
   */
  let labReadyAt: number;
  let stopRenewing: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    if (!existsSync(LIBFAKETIME)) throw new Error(`${LIBFAKETIME} is missing: install Debian's faketime`);
    // Three workers: node-a cut stays under the 40 % unhealthy limit.
    lab = await startLab({ nodes: 3 });
    labReadyAt = Date.now();
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
  });
  afterEach(async () => {
    await stopRenewing?.();
    stopRenewing = undefined;
  });
  afterAll(async () => {
    killFencers();
    await lab?.stop();
  });

  it('checks that the skew is real: the CLI under libfaketime reads a clock minutes away', async () => {
    const { execFileSync } = await import('node:child_process');
    const read = (offset: string) =>
      Number(
        execFileSync(process.execPath, ['-e', 'process.stdout.write(String(Date.now()))'], {
          env: { ...process.env, ...skewedClock(offset) },
        }).toString(),
      );
    expect(read('+2m') - Date.now()).toBeGreaterThan(100_000);
    expect(Date.now() - read('-90s')).toBeGreaterThan(80_000);
  });

  for (const offset of ['+2m', '+1h']) {
    it(`refuses a NotReady node whose Lease is renewed every second, its clock ${offset} fast`, async () => {
      stopRenewing = keepLeaseFresh(lab, 'node-a');
      lab.ec2Faults.resetRequests();
      const mark = auditMark(lab);

      const { code, report } = await fenceSkewed(lab, offset);

      await expectNothingDone(lab, mark);
      expect(report?.reason).toBe('LeaseFresh');
      // The evidence ages the renewal on the API server's clock: seconds, not minutes or hours. The
      // server's Date is to the second, so a renewal in its last second reads as "1s after".
      expect(JSON.stringify(report)).toMatch(
        /lease renewed (([0-9]|[1-3][0-9])s before|1s after) it was read/,
      );
      expect(code).toBe(3);
    });
  }

  it("refuses a NotReady node whose kubelet's clock runs five minutes slow: its renewTime looks old, the API server's stamp on each renewal does not", async () => {
    stopRenewing = keepLeaseFresh(lab, 'node-a', 300);
    lab.ec2Faults.resetRequests();
    const mark = auditMark(lab);

    const { code, report } = await startTracked(lab, [
      'fence',
      'node-a',
      '--lease-grace',
      String(LEASE_GRACE_SECONDS),
      '--output',
      'json',
    ]).done;

    await expectNothingDone(lab, mark);
    expect(report?.reason).toBe('LeaseFresh');
    expect(JSON.stringify(report)).toMatch(
      /lease written [0-9]s before it was read .* the writer's clock runs behind/,
    );
    expect(code).toBe(3);
  });

  it('refuses the same node with its clock 90 s slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, labReadyAt + 95_000 - Date.now())));
    stopRenewing = keepLeaseFresh(lab, 'node-a');
    lab.ec2Faults.resetRequests();
    const mark = auditMark(lab);

    const { code, report } = await fenceSkewed(lab, '-90s');

    const a = lab.node('node-a');
    expect(powerOffsOf(lab, a.instanceId)).toEqual([]);
    expect(releasesSince(lab, mark)).toEqual([]);
    expect(report?.reason).toBe('LeaseFresh');
    expect(code).toBe(3);
  });

  it('fences a truly silent node, its clock 90 s slow (on its own clock the Lease would look fresh)', {
    timeout: 240_000,
  }, async () => {
    // Last renewed 100 s ago by the API server's clock: 10 s by a clock 90 s behind, inside the grace.
    await setLeaseRenewed(lab, 'node-a', 100);
    await waitKubeletSilentFor(lab, 'node-a', LEASE_GRACE_SECONDS + 1);
    lab.ec2Faults.resetRequests();

    const { code, report } = await fenceSkewed(lab, '-90s');

    const a = lab.node('node-a');
    const seen = JSON.stringify(report);
    expect(
      powerOffsOf(lab, a.instanceId).map((r) => r.action),
      seen,
    ).toContain('StopInstances');
    expect(await instanceState(lab, a.instanceId), seen).toBe('stopped');
    expect(await taintsOn(lab, 'node-a'), seen).toContain(OUT_OF_SERVICE);
    expect(report?.outcome, report?.message).toBe('fenced');
    expect(code).toBe(0);
  });
});
