/** The scheduled sweep's handler: parse the schedule's event, run the sweep report-only, return a bounded summary. */
import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { fakeDeps, node, pv, va } from '../app/sweep/fakes.js';

const world = {
  nodes: [node('node-a')],
  vas: [va('va-zombie', { nodeName: 'node-gone', csiNodeId: `i-0${'b'.repeat(16)}` })],
  pvs: [pv('pv-1', 'vol-1')],
  power: {},
  disks: {},
  deleted: [] as string[],
  providerCalls: { instances: 0, disks: 0 },
};

vi.mock('../../../functions/shared/connection.js', async () => {
  const { createTelemetry } = await import('../../../lib/observability/index.js');
  return {
    settings: {
      cluster: 'prod',
      requestDefaults: { limits: { maxUnhealthyNodes: 3, maxUnhealthyFraction: 0.4 } },
    },
    telemetry: createTelemetry({ cluster: 'prod', level: 'SILENT' }),
  };
});
vi.mock('../../../functions/shared/step-runtime.js', () => ({ fencerDeps: async () => fakeDeps(world) }));

const context = { awsRequestId: 'req-1' } as unknown as Context;
const scheduled = {
  id: 'evt-1',
  source: 'aws.events',
  'detail-type': 'Scheduled Event',
  time: '2026-03-01T12:00:00Z',
  resources: ['arn:aws:events:us-east-1:123456789012:rule/sweep'],
};

describe('the sweep handler', () => {
  it('sweeps report-only on schedule and returns the counts and finding ids, not the findings', async () => {
    const { handler } = await import('../../../functions/sweep/index.js');
    const result = await handler(scheduled, context);
    expect(result).toMatchObject({
      mode: 'report-only',
      counts: { VA_NODE_MISSING: 1 },
      findingIds: ['VA_NODE_MISSING/va-zombie'],
    });
    expect(result).not.toHaveProperty('findings');
    expect(world.deleted).toEqual([]);
  });

  it('rejects anything but a scheduled event, touching nothing', async () => {
    const { handler } = await import('../../../functions/sweep/index.js');
    await expect(handler({ source: 'aws.ec2' }, context)).rejects.toMatchObject({ name: 'ValidationError' });
  });
});
