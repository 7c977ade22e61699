/** The CLI's wait between fence steps: woken by the machine turning off, not only by node changes. */
import { describe, expect, it } from 'vitest';
import type { FenceStepState } from '../../../../lib/app/fence/fence-step.js';
import {
  FIRST_LOOK_MS,
  POWER_POLL_MAX_MS,
  powerPollDelayMs,
  RELEASE_LOOK_MS,
  waitBetweenFenceSteps,
} from '../../../../lib/app/fence/wait-for-off.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { DEFAULT_LIMITS, startRun } from '../../../../lib/domain/index.js';
import type { Cluster } from '../../../../lib/ports/cluster.js';
import type { ComputeFencer } from '../../../../lib/ports/compute-fencer.js';

const INSTANCE = 'i-0123456789abcdef0';

let now = new Date('2026-03-01T12:00:05.000Z');

function fakes(states: readonly string[]) {
  const looks: string[] = [];
  let watchAborted = false;
  const waits: number[] = [];
  const cluster: Partial<Cluster> = {
    getNode: async () => ({ name: 'node-a', providerId: `aws:///us-east-1a/${INSTANCE}` }) as never,
    // A node that never changes: only the timeout or the signal ends the watch.
    waitForNodeChange: (_, timeoutMs, signal) =>
      new Promise((resolve) => {
        waits.push(timeoutMs);
        const timer = setTimeout(() => resolve('timeout'), timeoutMs);
        signal?.addEventListener('abort', () => {
          watchAborted = true;
          clearTimeout(timer);
          resolve('timeout');
        });
      }),
  };
  const fencer: Partial<ComputeFencer> = {
    parseProviderId: () => ({ provider: 'aws', instanceId: INSTANCE }),
    observePower: async () => {
      const state = states[Math.min(looks.length, states.length - 1)] ?? 'running';
      looks.push(state);
      return { instanceId: INSTANCE, state: state as never, observedAt: new Date().toISOString() };
    },
  };
  const deps = {
    cluster: cluster as Cluster,
    clock: { now: () => now },
    compute: { forProviderId: () => fencer as ComputeFencer },
  } as unknown as FencerDeps;
  return { deps, looks, waits, watchAborted: () => watchAborted };
}

const state = (phase: string, proof = false, taintedAt: string | null = null): FenceStepState => ({
  request: {
    node: 'node-a',
    cluster: 'lab',
    dryRun: false,
    strategy: 'auto',
    accelerate: true,
    allowTerminate: false,
    skipOsShutdown: false,
    forceDeleteTolerating: false,
    limits: DEFAULT_LIMITS,
  },
  history: {
    ...startRun('run-1', '2026-03-01T12:00:00.000Z'),
    target: { node: 'node-a', nodeUid: 'uid-a', provider: 'aws', instanceId: INSTANCE },
    decidedToFenceAt: '2026-03-01T12:00:00.000Z',
    proofOfOff: proof
      ? { instanceId: INSTANCE, state: 'stopped', observedAt: '2026-03-01T12:00:01.000Z' }
      : null,
    taintedAt,
  },
  decision: { phase } as never,
});

describe('waiting between fence steps', () => {
  it('wakes as soon as the machine it powers off is reported off, ending the watch', async () => {
    const { deps, looks, watchAborted } = fakes(['stopping', 'stopping', 'stopped']);
    await waitBetweenFenceSteps(deps, state('PowerOff'), 60_000);
    expect(looks).toEqual(['stopping', 'stopping', 'stopped']);
    expect(watchAborted()).toBe(true);
  });

  it('looks at a stopping machine no faster than once a second, backing off to a cap', () => {
    const delays = Array.from({ length: 12 }, (_, look) => powerPollDelayMs(look));
    expect(delays[0]).toBe(1000);
    for (const [i, delay] of delays.entries()) {
      expect(delay).toBeGreaterThanOrEqual(1000);
      expect(delay).toBeLessThanOrEqual(POWER_POLL_MAX_MS);
      if (i > 0) expect(delay).toBeGreaterThanOrEqual(delays[i - 1] ?? 0);
    }
    expect(delays.at(-1)).toBe(POWER_POLL_MAX_MS);
  });

  it('does not look at the machine outside the wait for the power-off', async () => {
    const { deps, looks } = fakes(['stopped']);
    await waitBetweenFenceSteps(deps, state('Drain', true), 50);
    await waitBetweenFenceSteps(deps, state('Assess'), 50);
    expect(looks).toEqual([]);
  });

  it('looks again within 200 ms in the first second after the taint, within half a second until ten, then waits the full poll', async () => {
    const { deps, waits, looks } = fakes(['stopped']);
    const tainted = '2026-03-01T12:00:02.000Z';
    for (const [at, phase] of [
      ['2026-03-01T12:00:02.100Z', 'Taint'],
      ['2026-03-01T12:00:02.999Z', 'Drain'],
      ['2026-03-01T12:00:03.000Z', 'Drain'],
      ['2026-03-01T12:00:05.000Z', 'Drain'],
      ['2026-03-01T12:00:11.999Z', 'Drain'],
      ['2026-03-01T12:00:12.000Z', 'Drain'],
      ['2026-03-01T12:00:05.000Z', 'Assess'],
    ] as const) {
      now = new Date(at);
      await waitBetweenFenceSteps(deps, state(phase, true, tainted), 2_000);
    }
    expect(waits).toEqual([
      FIRST_LOOK_MS,
      FIRST_LOOK_MS,
      RELEASE_LOOK_MS,
      RELEASE_LOOK_MS,
      RELEASE_LOOK_MS,
      2_000,
      2_000,
    ]);
    expect(looks).toEqual([]);
  });

  it('never lengthens a wait shorter than the quick look, and leaves untainted runs alone', async () => {
    const { deps, waits } = fakes(['stopped']);
    now = new Date('2026-03-01T12:00:02.500Z');
    await waitBetweenFenceSteps(deps, state('Drain', true, '2026-03-01T12:00:02.000Z'), 100);
    await waitBetweenFenceSteps(deps, state('Drain', true, null), 1_000);
    expect(waits).toEqual([100, 1_000]);
  });
});
