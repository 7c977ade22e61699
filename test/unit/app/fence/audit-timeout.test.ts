/**
 * A run that gives up at its timeout is a failure like any other (SAFETY.md rule 9): logged, counted,
 * and left on the node as a Warning Event that names where it stood and the error that kept its last
 * step from deciding. A dry run writes nothing; a node that is gone gets no Event.
 */
import { describe, expect, it } from 'vitest';
import { auditTimeout } from '../../../../lib/app/fence/audit.js';
import type { StepDecision } from '../../../../lib/app/fence/outcome.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type { Cluster, NodeEvent, NodeView } from '../../../../lib/ports/cluster.js';

function fakeDeps(nodeExists = true) {
  const events: NodeEvent[] = [];
  const errors: string[] = [];
  const metrics = new InMemoryMetrics();
  const cluster: Partial<Cluster> = {
    getNode: async () => (nodeExists ? ({ name: 'node-a' } as NodeView) : null),
    recordNodeEvent: async (_node, event) => {
      events.push(event);
    },
  };
  const deps = {
    cluster: cluster as Cluster,
    compute: { forProviderId: () => null },
    clock: { now: () => new Date('2026-03-01T12:00:00Z') },
    log: { info() {}, warn() {}, error: (message: string) => errors.push(message) },
    metrics,
  } as FencerDeps;
  return { deps, events, errors, metrics };
}

const powerOffStep: StepDecision = {
  at: '2026-03-01T11:59:30Z',
  phase: 'PowerOff',
  done: false,
  outcome: 'in-progress',
  reason: 'PowerOffNotConfirmed',
  message: 'The instance is not off yet.',
  waitSeconds: 5,
  rule: 'power-off',
  action: null,
  actionResult: null,
  evidence: [],
  tookMs: 12,
};

const throttled = Object.assign(new Error('StopInstances: Request limit exceeded.'), {
  name: 'ProviderApiError',
});

describe('auditTimeout', () => {
  it('leaves a Warning Event naming the phase and the error that kept the last step from deciding', async () => {
    const { deps, events, errors, metrics } = fakeDeps();
    await auditTimeout(deps, { node: 'node-a', mayWrite: true, timeoutSeconds: 30 }, powerOffStep, throttled);

    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Warning', reason: 'FencingTimedOut' });
    expect(events[0]?.message).toContain('gave up after 30 s in phase PowerOff');
    expect(events[0]?.message).toContain('ProviderApiError: StopInstances: Request limit exceeded.');
    expect(errors).toEqual([events[0]?.message]);
    expect(metrics.counts.get('FencingRuns outcome=failed')).toBe(1);
  });

  it('names the last decision when no error was pending', async () => {
    const { deps, events } = fakeDeps();
    await auditTimeout(deps, { node: 'node-a', mayWrite: true, timeoutSeconds: 5 }, powerOffStep, undefined);
    expect(events[0]?.message).toContain('last: PowerOffNotConfirmed: The instance is not off yet.');
  });

  it('says when no step decided at all', async () => {
    const { deps, events } = fakeDeps();
    await auditTimeout(deps, { node: 'node-a', mayWrite: true, timeoutSeconds: 5 }, null, throttled);
    expect(events[0]?.message).toContain('before any step decided');
  });

  it('writes no Event in a dry run, or on a node that is gone, but still logs and counts', async () => {
    for (const [mayWrite, exists] of [
      [false, true],
      [true, false],
    ] as const) {
      const { deps, events, errors, metrics } = fakeDeps(exists);
      await auditTimeout(deps, { node: 'node-a', mayWrite, timeoutSeconds: 5 }, powerOffStep, throttled);
      expect(events).toEqual([]);
      expect(errors).toHaveLength(1);
      expect(metrics.counts.get('FencingRuns outcome=failed')).toBe(1);
    }
  });
});
