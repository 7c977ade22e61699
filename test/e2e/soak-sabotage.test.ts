/**
 * The soak's checker catches what it checks (docs/soak.md): the soak of soak.test.ts with a fencer built
 * without the blast-radius rule in its fence table. Seed 1715, partitions and an operator's fence only,
 * takes three nodes down at once, beyond the deployed limit of two: the health check starts nothing
 * then (its own guard), but the operator runs `fencer fence` on db-1's node, and the broken table lets
 * that run power it off. The checker must name the violation, its step and the command that replays it.
 */

import { describe, expect, it } from 'vitest';
import { FaultKind, planFaults } from '../../lab/soak/schedule.js';
import { runSoak } from '../../lab/soak/soak.js';
import { PROFILES, SOAK_NODES } from '../../lab/soak/world.js';

const SOAK_TIMEOUT_MS = 15 * 60_000;

describe('the soak with a sabotaged fencer', () => {
  it(
    'catches a fencer built without the blast-radius rule, naming the invariant and the step to replay',
    async () => {
      const kinds = [FaultKind.Partition, FaultKind.ManualRace];
      const options = { world: 'aws', seed: 1715, minutes: 4, kinds } as const;
      const schedule = planFaults({
        ...options,
        nodes: SOAK_NODES,
        incidentSeconds: PROFILES.quick.incidentSeconds,
      });
      const result = await runSoak({ ...options, profile: 'quick', sabotage: 'no-blast-radius' });

      // The same seed replays the same schedule.
      expect(result.schedule).toEqual(schedule);
      const overLimit = result.violations.filter((v) => v.invariant === 'unhealthy-over-limit');
      expect(overLimit.length, result.report.text).toBeGreaterThan(0);
      expect(overLimit.every((v) => v.step !== undefined && v.node !== undefined)).toBe(true);
      expect(result.report.text).toContain('unhealthy-over-limit');
      expect(result.report.text).toContain(
        'replay: npm run soak -- --world aws --seed 1715 --minutes 4 --profile quick --faults partition,manual-race --sabotage no-blast-radius',
      );
    },
    SOAK_TIMEOUT_MS,
  );
});
