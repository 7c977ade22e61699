/**
 * The Step Functions fencing loop (lib/app/fence/workflow-step.ts), crashed at every write it makes. Step
 * Functions retries a crashed task with the task's own input, which knows nothing of what the crashed
 * attempt did: a power-off requested just before the crash is the dangerous case. Whatever point the
 * crash hits, the retried run ends fenced with one power-off request in all, and an instance started
 * again between the crash and the retry is never powered off a second time.
 *
 * The world is in memory (test/unit/app/support/crash-world.ts): a crash at an exact call cannot be
 * placed in the lab's real processes.
 */
import { describe, expect, it } from 'vitest';
import { type WorkflowState, workflowStep } from '../../../../lib/app/fence/workflow-step.js';
import { sealedCheckpoints } from '../support/checkpoints.js';
import { Crash, type CrashPoint, CrashWorld, request } from '../support/crash-world.js';

const RUN = 'lab-node-a-0123456789abcdef';
const MAX_STEPS = 200;

const firstState: WorkflowState = {
  request,
  run: { id: RUN, startedAt: '2026-03-01T12:00:00.000Z' },
  attempts: { count: 0 },
  history: null,
  decision: null,
};

interface Options {
  readonly crashAt?: CrashPoint;
  /** What happens in the world between the crash and the retry. */
  readonly beforeRetry?: () => void;
  /** The step as deployed keeps checkpoints on the Node; false shows what happens without them. */
  readonly checkpoints?: boolean;
}

/** Runs the loop as the state machine does: a crashed task is retried once with the same input. */
async function runWorkflow(world: CrashWorld, options: Options = {}): Promise<WorkflowState> {
  let state = firstState;
  let crashed = false;
  for (let step = 0; step < MAX_STEPS; step++) {
    const deps = world.deps(crashed ? undefined : options.crashAt);
    const checkpoints =
      options.checkpoints === false ? undefined : sealedCheckpoints(deps.cluster, deps.clock.now);
    try {
      state = await workflowStep(deps, state, checkpoints);
    } catch (error) {
      if (!(error instanceof Crash) || crashed) throw error;
      crashed = true;
      options.beforeRetry?.();
      continue;
    }
    if (state.decision?.done) return state;
  }
  return state;
}

async function writesOfARun(): Promise<readonly string[]> {
  const world = new CrashWorld();
  const state = await runWorkflow(world);
  expect(state.decision?.outcome).toBe('fenced');
  return world.writes;
}

const outOfService = (world: CrashWorld) =>
  world.node.taints.filter((t) => t.key === 'node.kubernetes.io/out-of-service');

describe('the Step Functions fencing loop crashed at any write', async () => {
  const writes = await writesOfARun();
  const points: CrashPoint[] = writes.flatMap((_, index) => [
    { index, when: 'before' as const },
    { index, when: 'after' as const },
  ]);
  const afterPowerOff = points.filter((p) =>
    writes.slice(0, p.index + (p.when === 'after' ? 1 : 0)).includes('powerOff'),
  );

  it('records the checkpoint on the Node right before the power-off', () => {
    expect(writes).toEqual(expect.arrayContaining(['claimFencing', 'annotateNode', 'powerOff', 'addTaint']));
    expect(writes.indexOf('annotateNode')).toBe(writes.indexOf('powerOff') - 1);
  });

  it('without the checkpoint, a retry after the power-off would stop a restarted instance again', async () => {
    const world = new CrashWorld();
    await runWorkflow(world, {
      checkpoints: false,
      crashAt: { index: writes.indexOf('powerOff') - 1, when: 'after' },
      beforeRetry: () => world.startInstanceAgain(),
    });
    // The control: what the checkpoint is there to prevent (SAFETY.md rule 2).
    expect(world.powerOffRequests).toBe(2);
  });

  it.each(points.map((p) => [`${p.when} write ${p.index} (${writes[p.index]})`, p] as const))(
    'ends fenced after a crash %s, with one power-off request in all',
    async (_, crashAt) => {
      const world = new CrashWorld();
      const state = await runWorkflow(world, { crashAt });
      expect(state.decision?.outcome).toBe('fenced');
      expect(world.powerOffRequests).toBe(1);
      expect(outOfService(world)).toHaveLength(1);
    },
  );

  it.each(
    afterPowerOff
      .filter((p) => writes[p.index] !== 'releaseFencing')
      .map((p) => [`${p.when} write ${p.index} (${writes[p.index]})`, p] as const),
  )('never powers off a second time an instance started again after a crash %s', async (_, crashAt) => {
    const world = new CrashWorld();
    const state = await runWorkflow(world, { crashAt, beforeRetry: () => world.startInstanceAgain() });
    expect(world.powerOffRequests).toBe(1);
    expect(state.decision?.outcome).not.toBe('fenced');
    expect(outOfService(world)).toEqual(world.taintedBeforeRestart);
  });
});
