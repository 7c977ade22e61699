/**
 * The audit trail of a step, a throw and a timeout (SAFETY.md rule 9, every refusal loud): which log
 * level, which Event (and when none may be written: a dry run, a node that does not exist), what the
 * Event says, and which metrics count it. The ports are recording fakes; the lab's Events are asserted
 * by test/e2e/refusals.test.ts and adversarial/.
 */
import { describe, expect, it } from 'vitest';
import { audit, auditError, auditTimeout } from '../../../../lib/app/fence/audit.js';
import type { StepDecision } from '../../../../lib/app/fence/outcome.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type { Cluster, NodeEvent, NodeView } from '../../../../lib/ports/cluster.js';

interface Logged {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>> | undefined;
}

function world(options: { nodeExists?: boolean; eventFails?: boolean; eventThrowsNothing?: boolean } = {}) {
  const events: { node: string; event: NodeEvent }[] = [];
  const logs: Logged[] = [];
  const metrics = new InMemoryMetrics();
  const cluster: Partial<Cluster> = {
    getNode: async (name) => (options.nodeExists === false ? null : ({ name } as NodeView)),
    recordNodeEvent: async (node, event) => {
      if (options.eventFails) throw Object.assign(new Error('forbidden'), { name: 'KubernetesApiError' });
      if (options.eventThrowsNothing) throw undefined;
      events.push({ node, event });
    },
  };
  const deps = {
    cluster: cluster as Cluster,
    log: {
      info: (message: string, fields?: Record<string, unknown>) =>
        logs.push({ level: 'info', message, fields }),
      warn: (message: string, fields?: Record<string, unknown>) =>
        logs.push({ level: 'warn', message, fields }),
      error: (message: string, fields?: Record<string, unknown>) =>
        logs.push({ level: 'error', message, fields }),
    },
    metrics,
  } as unknown as FencerDeps;
  return { deps, events, logs, metrics };
}

const step = (overrides: Partial<StepDecision> = {}): StepDecision => ({
  at: '2026-03-01T12:00:00.000Z',
  phase: 'Assess',
  done: false,
  outcome: 'in-progress',
  reason: null,
  message: 'Node is NotReady; waiting.',
  waitSeconds: 15,
  rule: 'lease-grace',
  action: null,
  actionResult: null,
  evidence: ['node node-a: Ready=Unknown'],
  tookMs: 12,
  ...overrides,
});

const SCOPE = { node: 'node-a', writeEvents: true };

describe('audit of a step', () => {
  it('logs every field of the step at info, and at warn when it refused or failed', async () => {
    for (const [phase, level] of [
      ['Assess', 'info'],
      ['Fenced', 'info'],
      ['Refused', 'warn'],
      ['Failed', 'warn'],
    ] as const) {
      const w = world();
      const s = step({ phase, reason: 'LeaseFresh', action: 'taint', actionResult: 'done' });
      await audit(w.deps, SCOPE, null, s);
      expect(w.logs).toEqual([
        {
          level,
          message: s.message,
          fields: {
            node: 'node-a',
            phase,
            outcome: 'in-progress',
            reason: 'LeaseFresh',
            rule: 'lease-grace',
            action: 'taint',
            actionResult: 'done',
            waitSeconds: 15,
            evidence: ['node node-a: Ready=Unknown'],
            tookMs: 12,
          },
        },
      ]);
    }
  });

  it('records an Event for the first step, a new phase, a new reason, or an action', async () => {
    const previous = step({ reason: 'LeaseFresh' });
    const cases: [StepDecision | null, StepDecision, boolean][] = [
      [null, step(), true],
      [previous, step({ reason: 'LeaseFresh', phase: 'PowerOff' }), true],
      [previous, step({ reason: 'HeartbeatFresh' }), true],
      [previous, step({ reason: 'LeaseFresh', action: 'power-off' }), true],
      // The same phase, the same reason (or none), no action: nothing new to say on the node.
      [previous, step({ reason: 'LeaseFresh' }), false],
      [step(), step(), false],
      [previous, step({ reason: null }), false],
    ];
    for (const [before, now, written] of cases) {
      const w = world();
      await audit(w.deps, SCOPE, before, now);
      expect(w.events.length, JSON.stringify([before?.phase, before?.reason, now])).toBe(written ? 1 : 0);
    }
  });

  it('writes no Event where the scope forbids it (a dry run, a node that does not exist)', async () => {
    const w = world();
    await audit(
      w.deps,
      { node: 'node-a', writeEvents: false },
      null,
      step({ phase: 'Refused', reason: 'NodeNotFound' }),
    );
    expect(w.events).toEqual([]);
    expect(w.logs).toHaveLength(1);
  });

  it('says in the Event what was decided and done: a Warning for a refusal, the reason first', async () => {
    const w = world();
    await audit(
      w.deps,
      SCOPE,
      null,
      step({ phase: 'Refused', reason: 'LeaseFresh', message: 'The Lease was renewed 3 s ago.' }),
    );
    await audit(
      w.deps,
      SCOPE,
      null,
      step({
        phase: 'PowerOff',
        action: 'power-off',
        actionResult: 'i-0abc: stop requested',
        message: 'Powering off.',
      }),
    );
    await audit(w.deps, SCOPE, null, step({ phase: 'Failed', message: 'Gave up.' }));
    await audit(w.deps, SCOPE, null, step({ phase: 'Fenced', message: 'Fenced.' }));

    expect(w.events).toEqual([
      {
        node: 'node-a',
        event: {
          type: 'Warning',
          reason: 'FencingRefused',
          message: 'LeaseFresh: The Lease was renewed 3 s ago.',
          action: 'Refuse',
        },
      },
      {
        node: 'node-a',
        event: {
          type: 'Normal',
          reason: 'FencingPowerOff',
          message: 'Powering off.: i-0abc: stop requested',
          action: 'power-off',
        },
      },
      {
        node: 'node-a',
        event: { type: 'Warning', reason: 'FencingFailed', message: 'Gave up.', action: 'Refuse' },
      },
      {
        node: 'node-a',
        event: { type: 'Normal', reason: 'FencingFenced', message: 'Fenced.', action: 'Observe' },
      },
    ]);
  });

  it('cuts an Event message at 1,000 characters', async () => {
    const w = world();
    await audit(w.deps, SCOPE, null, step({ message: 'x'.repeat(1500) }));
    expect(w.events[0]?.event.message).toBe('x'.repeat(1000));
  });

  it('counts a run when its last step is done, and each reason once when it first appears', async () => {
    const w = world();
    const first = step({ reason: 'LeaseFresh' });
    await audit(w.deps, SCOPE, null, first);
    await audit(w.deps, SCOPE, first, step({ reason: 'LeaseFresh' }));
    await audit(w.deps, SCOPE, first, step({ reason: null }));
    await audit(
      w.deps,
      SCOPE,
      first,
      step({ phase: 'Refused', reason: 'LeaseFresh', done: true, outcome: 'refused' }),
    );

    expect(Object.fromEntries(w.metrics.counts)).toEqual({
      'FencingReasons reason=LeaseFresh': 1,
      'FencingRuns outcome=refused': 1,
    });
  });
});

describe('audit of a step that threw', () => {
  const boom = Object.assign(new Error('API server unreachable'), { name: 'KubernetesApiError' });

  it('logs and counts it by error name, and leaves a Warning Event on the node', async () => {
    const w = world();
    await auditError(w.deps, 'node-a', true, boom);
    expect(w.logs).toEqual([
      {
        level: 'error',
        message: 'step failed before it could decide',
        fields: {
          node: 'node-a',
          reason: 'StepError',
          error: 'KubernetesApiError',
          message: 'API server unreachable',
        },
      },
    ]);
    expect(Object.fromEntries(w.metrics.counts)).toEqual({ 'FencingErrors error=KubernetesApiError': 1 });
    expect(w.events).toEqual([
      {
        node: 'node-a',
        event: {
          type: 'Warning',
          reason: 'FencingError',
          message: 'StepError: KubernetesApiError: API server unreachable',
          action: 'Observe',
        },
      },
    ]);
  });

  it('names what was thrown even when it is not an Error, and cuts the Event at 1,000 characters', async () => {
    const w = world();
    await auditError(w.deps, 'node-a', true, undefined);
    expect(w.logs[0]?.fields).toMatchObject({ error: 'Error', message: 'undefined' });
    await auditError(w.deps, 'node-a', true, new Error('y'.repeat(2000)));
    expect(w.events[1]?.event.message).toHaveLength(1000);
  });

  it('writes nothing on the cluster in a dry run or for a node that does not exist, but still logs and counts', async () => {
    for (const [mayWrite, nodeExists] of [
      [false, true],
      [true, false],
    ] as const) {
      const w = world({ nodeExists });
      await auditError(w.deps, 'node-a', mayWrite, boom);
      expect(w.events).toEqual([]);
      expect(w.metrics.counts.get('FencingErrors error=KubernetesApiError')).toBe(1);
    }
  });

  it('never lets a failed Event hide the error: it logs a warning and returns', async () => {
    const w = world({ eventFails: true });
    await expect(auditError(w.deps, 'node-a', true, boom)).resolves.toBeUndefined();
    expect(w.logs.at(-1)).toEqual({
      level: 'warn',
      message: 'could not record the step failure on the node',
      fields: { node: 'node-a', error: 'KubernetesApiError' },
    });
    const odd = world({ eventThrowsNothing: true });
    await expect(auditError(odd.deps, 'node-a', true, boom)).resolves.toBeUndefined();
    expect(odd.logs.at(-1)?.fields).toEqual({ node: 'node-a', error: undefined });
  });
});

describe('audit of a run that timed out', () => {
  const scope = { node: 'node-a', mayWrite: true, timeoutSeconds: 900 };

  it('says where the run stood and what last went wrong, as a failed run and a Warning Event', async () => {
    const w = world();
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'RequestLimitExceeded' });
    await auditTimeout(w.deps, scope, step({ phase: 'PowerOff', reason: 'LeaseFresh' }), throttled);

    const message =
      'Timeout: gave up after 900 s in phase PowerOff; the last step failed: RequestLimitExceeded: Rate exceeded';
    expect(w.logs).toEqual([
      {
        level: 'error',
        message,
        fields: { node: 'node-a', reason: 'Timeout', phase: 'PowerOff', error: 'RequestLimitExceeded' },
      },
    ]);
    expect(Object.fromEntries(w.metrics.counts)).toEqual({ 'FencingRuns outcome=failed': 1 });
    expect(w.events).toEqual([
      { node: 'node-a', event: { type: 'Warning', reason: 'FencingTimedOut', message, action: 'Observe' } },
    ]);
  });

  it('names the last reason when no step failed, and says so when no step decided', async () => {
    const w = world();
    await auditTimeout(
      w.deps,
      scope,
      step({ reason: 'ProviderThrottled', message: 'EC2 did not answer.' }),
      undefined,
    );
    await auditTimeout(w.deps, scope, step(), undefined);
    await auditTimeout(w.deps, scope, null, undefined);
    expect(w.events.map((e) => e.event.message)).toEqual([
      'Timeout: gave up after 900 s in phase Assess; last: ProviderThrottled: EC2 did not answer.',
      'Timeout: gave up after 900 s in phase Assess',
      'Timeout: gave up after 900 s before any step decided',
    ]);
    expect(w.logs[2]?.fields).toEqual({
      node: 'node-a',
      reason: 'Timeout',
      phase: undefined,
      error: undefined,
    });
  });

  it('cuts its Event at 1,000 characters, writes none when it may not or the node is gone, and survives a failed Event', async () => {
    const long = world();
    await auditTimeout(long.deps, scope, null, new Error('z'.repeat(2000)));
    expect(long.events[0]?.event.message).toHaveLength(1000);

    const dryRun = world();
    await auditTimeout(dryRun.deps, { ...scope, mayWrite: false }, null, undefined);
    expect(dryRun.events).toEqual([]);
    expect(dryRun.metrics.counts.get('FencingRuns outcome=failed')).toBe(1);
    const gone = world({ nodeExists: false });
    await auditTimeout(gone.deps, scope, null, undefined);
    expect(gone.events).toEqual([]);
    expect(gone.metrics.counts.get('FencingRuns outcome=failed')).toBe(1);

    const failing = world({ eventFails: true });
    await expect(auditTimeout(failing.deps, scope, null, undefined)).resolves.toBeUndefined();
    expect(failing.logs.at(-1)).toEqual({
      level: 'warn',
      message: 'could not record the timeout on the node',
      fields: { node: 'node-a', error: 'KubernetesApiError' },
    });
    const odd = world({ eventThrowsNothing: true });
    await expect(auditTimeout(odd.deps, scope, null, undefined)).resolves.toBeUndefined();
    expect(odd.logs.at(-1)?.message).toBe('could not record the timeout on the node');
  });
});
