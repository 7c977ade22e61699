/**
 * The handlers themselves (middy, parse, one use case, return), with the functions' composition root
 * replaced by fakes of our own ports.
 */
import type { Context } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fenceRequestSchema } from '../../../lib/config/fence-request.js';
import { INSTANCE_A, statusCheckAlarm } from './support/aws-events.js';
import { fakeDeps, node, pv, REQUEST_DEFAULTS, va } from './support/fakes.js';

const world = {
  nodes: [
    node('node-a', `aws:///us-east-1a/${INSTANCE_A}`, { readySince: '2026-02-02T17:00:00Z' }),
    ...['b', 'c', 'd'].map((x) =>
      node(`node-${x}`, `aws:///us-east-1a/i-0${x.repeat(16)}`, { ready: 'True' }),
    ),
  ],
  vas: [va('node-a', 'pv-db')],
  pvs: [pv('pv-db')],
};
let fake = fakeDeps(world);

vi.mock('../../../functions/shared/connection.js', async () => {
  const { createTelemetry } = await import('../../../lib/observability/index.js');
  return { telemetry: createTelemetry({ cluster: 'prod', level: 'SILENT' }) };
});
vi.mock('../../../functions/shared/trigger-runtime.js', () => ({
  triggerDeps: async () => fake.deps,
  triggerSettings: { cluster: 'prod', requestDefaults: REQUEST_DEFAULTS },
  settings: { notReadyThresholdSeconds: 180 },
}));
vi.mock('../../../functions/shared/step-runtime.js', () => ({
  fencerDeps: async () => {
    throw new Error('a step with invalid input must not reach the cluster');
  },
}));

const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

describe('the Lambda handlers', () => {
  beforeEach(() => {
    fake = fakeDeps(world);
  });

  it('event router: an alarm starts the run of its node', async () => {
    const { handler } = await import('../../../functions/event-router/index.js');

    const result = await handler(statusCheckAlarm(), context);

    expect(result.outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-a' })]);
  });

  it('manual: the request of `fencer fence` starts a run with exactly that request', async () => {
    const { handler } = await import('../../../functions/manual/index.js');
    const request = { node: 'node-a', cluster: 'prod', dryRun: true, limits: { maxUnhealthyNodes: 2 } };

    const outcome = await handler(request, context);

    expect(outcome).toMatchObject({ result: 'started', node: 'node-a' });
    const [run] = [...fake.workflow.runs.values()];
    expect(run?.input.request).toEqual(fenceRequestSchema.parse(request));
    expect(run?.input.trigger).toMatchObject({
      source: 'manual',
      eventId: 'req-1',
      detail: 'manual invoke (dry run)',
    });
  });

  it('manual: an invalid request is a ValidationError naming the problem, and starts nothing', async () => {
    const { handler } = await import('../../../functions/manual/index.js');

    await expect(handler({ node: 'node-a', cluster: 'prod', force: true }, context)).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining('force'),
    });
    expect(fake.workflow.runs.size).toBe(0);
  });

  it('health check: a scheduled event runs one check', async () => {
    const { handler } = await import('../../../functions/health-check/index.js');
    const tick = {
      version: '0',
      id: 'tick-1',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      time: '2026-02-02T17:15:00Z',
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:123456789012:rule/health-check'],
      detail: {},
    };

    const report = await handler(tick, context);

    expect(report.outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-a' })]);
  });

  it('step: a state that does not parse is a ValidationError (caught by the workflow, never retried)', async () => {
    const { handler } = await import('../../../functions/step/index.js');

    await expect(handler({ request: { node: 'node-a' } }, context)).rejects.toMatchObject({
      name: 'ValidationError',
    });
  });
});
