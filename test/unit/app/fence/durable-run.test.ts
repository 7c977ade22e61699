/**
 * The fencing run without a workflow engine (lib/app/fence/durable-run.ts, the Function Compute run
 * function's core), crashed at every point: before and after each write it makes, to the cluster or to
 * the provider. Whatever point the crash hits, the next attempt of the same run continues from the
 * checkpoint on the Node and ends fenced, with one power-off request in all, and an instance started
 * again between the attempts is never powered off a second time.
 *
 * The world is in memory (test/unit/app/support/crash-world.ts): a crash at an exact call cannot be
 * placed in the lab's real processes. The lab test (test/e2e/alibaba-functions.test.ts) kills the real
 * run function's process at the riskiest of these points, with Function Compute's own retry.
 */
import { describe, expect, it } from 'vitest';
import { runFenceDurably } from '../../../../lib/app/fence/durable-run.js';
import { CHECKPOINT_IGNORED_EVENT } from '../../../../lib/app/fence/run-checkpoint.js';
import { FENCER_ANNOTATION } from '../../../../lib/domain/node-marks.js';
import { sealedCheckpoints } from '../support/checkpoints.js';
import { Crash, type CrashPoint, CrashWorld, request } from '../support/crash-world.js';

const RUN = 'lab-node-a-0123456789abcdef';

/** One attempt of the run, as the run function makes it: fresh dependencies, the Node's checkpoint. */
const attempt = (world: CrashWorld, crashAt?: CrashPoint) => {
  const deps = world.deps(crashAt);
  return runFenceDurably(deps, request, sealedCheckpoints(deps.cluster, deps.clock.now), {
    runId: RUN,
    timeoutSeconds: 60,
  });
};

/** Every write of an uncrashed run, in order: the points a crash can hit. */
async function writesOfARun(): Promise<readonly string[]> {
  const world = new CrashWorld();
  const report = await attempt(world);
  expect(report).toMatchObject({ outcome: 'fenced', attempt: 'fresh' });
  return world.writes;
}

describe('a fencing run crashed at any point', async () => {
  const writes = await writesOfARun();
  const points: CrashPoint[] = writes.flatMap((_, index) => [
    { index, when: 'before' as const },
    { index, when: 'after' as const },
  ]);

  // The run's last two writes: the checkpoint that records its end, then that checkpoint's removal.
  const endRecord = writes.length - 2;

  it('makes the writes a crash can fall between: the claim, the checkpoint, the power-off, the taint', () => {
    expect(writes).toEqual(
      expect.arrayContaining(['claimFencing', 'annotateNode', 'powerOff', 'addTaint', 'releaseFencing']),
    );
    // The checkpoint that records the decision is written before the power-off is asked for.
    expect(writes.indexOf('annotateNode')).toBeLessThan(writes.indexOf('powerOff'));
    expect(writes.slice(endRecord)).toEqual(['annotateNode', 'annotateNode']);
  });

  it('leaves no checkpoint on the Node once the run has ended: the Node does not keep the request', async () => {
    const world = new CrashWorld();
    await attempt(world);
    expect(world.node.annotations[FENCER_ANNOTATION.runCheckpoint]).toBeUndefined();
  });

  it.each(points.map((p) => [`${p.when} write ${p.index} (${writes[p.index]})`, p] as const))(
    'continues after a crash %s: fenced, one power-off request in all',
    async (_, point) => {
      const world = new CrashWorld();

      await expect(attempt(world, point)).rejects.toBeInstanceOf(Crash);
      const report = await attempt(world);

      expect(report.outcome).toBe('fenced');
      expect(world.powerOffRequests).toBe(1);
      expect(world.node.taints.filter((t) => t.key === 'node.kubernetes.io/out-of-service')).toHaveLength(1);
      // The next run on this node finds the end recorded: no claim is left behind.
      expect(world.claims).toEqual([]);
    },
  );

  it.each(
    points
      // From the power-off request to the record of the run's end (after which the run is over and a
      // restarted instance is the un-fence's business).
      .filter((p) => writes.slice(0, p.index + (p.when === 'after' ? 1 : 0)).includes('powerOff'))
      .filter((p) => p.index < endRecord || (p.index === endRecord && p.when === 'before'))
      .map((p) => [`${p.when} write ${p.index} (${writes[p.index]})`, p] as const),
  )('never powers off a second time an instance started again after a crash %s', async (_, point) => {
    const world = new CrashWorld();

    await expect(attempt(world, point)).rejects.toBeInstanceOf(Crash);
    world.startInstanceAgain();
    const report = await attempt(world);

    expect(report.outcome).not.toBe('fenced');
    expect(world.powerOffRequests).toBe(1);
    expect(world.node.taints.filter((t) => t.key === 'node.kubernetes.io/out-of-service')).toEqual(
      world.taintedBeforeRestart,
    );
  });

  it('replays the end of a run that crashed before removing its checkpoint, without acting again', async () => {
    const world = new CrashWorld();
    await expect(attempt(world, { index: endRecord + 1, when: 'before' })).rejects.toBeInstanceOf(Crash);
    expect(world.node.annotations[FENCER_ANNOTATION.runCheckpoint]).toContain('"done":true');
    const writesBefore = world.writes.length;

    const again = await attempt(world);

    expect(again).toMatchObject({ outcome: 'fenced', attempt: 'replayed' });
    expect(world.writes.length).toBe(writesBefore);
  });

  it('ignores, loudly, a checkpoint of this run id written for another request, instead of failing the attempt', async () => {
    const world = new CrashWorld();
    // The first attempt crashes after its first checkpoint, which stays on the Node.
    await expect(
      attempt(world, { index: writes.indexOf('annotateNode'), when: 'after' }),
    ).rejects.toBeInstanceOf(Crash);
    const other = { ...request, accelerate: !request.accelerate };
    const deps = world.deps();
    const events: string[] = [];
    const cluster = {
      ...deps.cluster,
      recordNodeEvent: async (_: string, event: { reason: string }) => void events.push(event.reason),
    };

    const again = await runFenceDurably(
      { ...deps, cluster },
      other,
      sealedCheckpoints(cluster, deps.clock.now),
      { runId: RUN, timeoutSeconds: 60 },
    );

    expect(again.attempt).toBe('fresh');
    expect(events).toContain(CHECKPOINT_IGNORED_EVENT);
  });
});
