/** The soak's fault schedule: the same seed gives the same schedule, and every schedule keeps its promises. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FaultKind, planFaults, type ScheduleOptions } from '../../../lab/soak/schedule.js';

const NODES = ['node-a', 'node-b', 'node-c', 'node-d', 'node-e'];
const options = (seed: number, minutes = 30, world: ScheduleOptions['world'] = 'aws'): ScheduleOptions => ({
  seed,
  minutes,
  world,
  nodes: NODES,
  incidentSeconds: [150, 420],
});
const incident = (kind: FaultKind) => kind === FaultKind.Partition || kind === FaultKind.Crash;

describe('the soak schedule', () => {
  it('is the same for the same seed, and differs between seeds', () => {
    expect(planFaults(options(42))).toEqual(planFaults(options(42)));
    expect(planFaults(options(42))).not.toEqual(planFaults(options(43)));
  });

  it('keeps its promises for any seed and length', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.integer({ min: 2, max: 120 }),
        fc.constantFrom('aws', 'alibaba', 'rbd' as const),
        (seed, minutes, world) => {
          const faults = planFaults(options(seed, minutes, world));
          const end = minutes * 60;
          faults.forEach((f, i) => {
            expect(f.step).toBe(i);
            expect(f.at).toBeLessThan(end - 30);
            // Every fault is over before the soak's last 30 s, which are for the runs to end.
            expect(f.at + f.seconds).toBeLessThanOrEqual(end - 30);
            if (i > 0) expect(f.at).toBeGreaterThan(faults[i - 1]?.at ?? -1);
          });
          const incidents = faults.filter((f) => incident(f.kind));
          for (const f of incidents) {
            // Ends within the soak, on a node with no other incident until it is back and un-fenced.
            expect(f.at + f.seconds).toBeLessThanOrEqual(end - 30);
            const overlapping = incidents.filter(
              (g) => g !== f && g.at < f.at + f.seconds + 60 && f.at < g.at + g.seconds + 60,
            );
            expect(overlapping.filter((g) => g.node === f.node)).toEqual([]);
            // At most three nodes in an incident at once.
            const atOnce = incidents.filter((g) => g.at <= f.at && f.at < g.at + g.seconds + 60);
            expect(atOnce.length).toBeLessThanOrEqual(3);
          }
          // One maintenance taint at a time on a node.
          const marks = faults.filter((f) => f.kind === FaultKind.ForeignTaint);
          for (const f of marks) {
            const same = marks.filter((g) => g !== f && g.node === f.node && g.at >= f.at);
            expect(same.every((g) => g.at >= f.at + f.seconds)).toBe(true);
          }
          if (world === 'alibaba') expect(faults.filter((f) => f.kind === FaultKind.StuckStop)).toEqual([]);
          if (world !== 'rbd') expect(faults.filter((f) => f.kind === FaultKind.MgrPause)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('draws only the kinds asked for', () => {
    const faults = planFaults({ ...options(7), kinds: [FaultKind.Partition, FaultKind.ForeignTaint] });
    expect(new Set(faults.map((f) => f.kind))).toEqual(
      new Set([FaultKind.Partition, FaultKind.ForeignTaint]),
    );
    expect(planFaults({ ...options(7), kinds: [] })).toEqual([]);
  });

  it('races a manual fence and holds a stop for a node in an incident when there is one', () => {
    for (let seed = 0; seed < 200; seed++) {
      const faults = planFaults(options(seed));
      for (const f of faults.filter(
        (g) => g.kind === FaultKind.ManualRace || g.kind === FaultKind.StuckStop,
      )) {
        const down = faults.filter((g) => incident(g.kind) && g.at <= f.at && f.at < g.at + g.seconds + 60);
        if (down.length > 0) expect(down.map((g) => g.node)).toContain(f.node);
      }
    }
  });
});
