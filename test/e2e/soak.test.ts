/**
 * The soak in CI (lab/soak/, docs/soak.md): the automated path as deployed on AWS (the health check on
 * its schedule, the EC2 event router, the state machine with the real step handler) in a lab of five
 * workers and three databases, under a fault schedule drawn from a seed, judged afterwards by the
 * independent checker from the world's own records. Quick profile: shorter waits, so four minutes hold
 * several incidents. The same soak with a deliberately broken fencer: soak-sabotage.test.ts.
 *
 * Seed 172 draws a partition of db-2's node, a crash of db-0's, an operator's fence racing the
 * automated run, a late event and someone's maintenance taint.
 */

import { describe, expect, it } from 'vitest';
import { FaultKind } from '../../lab/soak/schedule.js';
import { runSoak } from '../../lab/soak/soak.js';

const MINUTES = 4;
const SOAK_TIMEOUT_MS = 15 * 60_000;

describe('the soak', () => {
  it(
    'runs four minutes of random faults with no violation, and recovers a database while its node is down',
    async () => {
      const result = await runSoak({ world: 'aws', seed: 172, minutes: MINUTES, profile: 'quick' });

      expect(result.violations).toEqual([]);
      expect(result.schedule.map((f) => f.kind)).toEqual(
        expect.arrayContaining([FaultKind.Partition, FaultKind.Crash, FaultKind.ManualRace]),
      );
      const whileDown = result.report.recoveries.filter((r) => r.whileDown);
      expect(whileDown.length, result.report.text).toBeGreaterThan(0);
      // Each recovery's milestones come in order: NotReady, a run, the fencer's taint, Running.
      for (const r of whileDown) {
        expect([r.notReady, r.runStarted, r.tainted, r.running].every((s) => s !== null)).toBe(true);
        expect(r.runStarted).toBeGreaterThanOrEqual(r.notReady ?? Infinity);
        expect(r.running).toBeGreaterThanOrEqual(r.tainted ?? Infinity);
      }
    },
    SOAK_TIMEOUT_MS,
  );
});
