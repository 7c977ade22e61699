/**
 * A payload with 100,000 unknown keys sent to the manual invoke, on AWS (functions/manual) and on
 * Alibaba Cloud (functions-fc/manual): a ValidationError naming a handful of the keys and how many
 * more, and log lines that stay a few KB, however large the payload.
 */
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFcTelemetry } from '../../../lib/observability/fc.js';
import { fakeDeps, REQUEST_DEFAULTS } from './support/fakes.js';

const fcLines: string[] = [];
let fake = fakeDeps({ nodes: [], vas: [], pvs: [] });

vi.mock('../../../functions/shared/connection.js', async () => {
  const { createTelemetry } = await import('../../../lib/observability/index.js');
  return { telemetry: createTelemetry({ cluster: 'prod', level: 'INFO' }) };
});
vi.mock('../../../functions/shared/trigger-runtime.js', () => ({
  triggerDeps: async () => fake.deps,
  triggerSettings: { cluster: 'prod', requestDefaults: REQUEST_DEFAULTS },
}));
vi.mock('../../../functions-fc/shared/runtime.js', () => ({
  settings: { cluster: 'prod' },
  telemetry: createFcTelemetry({ write: (line) => fcLines.push(line) }),
  triggerDeps: async () => fake.deps,
  triggerSettings: { cluster: 'prod', requestDefaults: REQUEST_DEFAULTS },
}));

const UNKNOWN_KEYS = 100_000;
/** A valid request buried in 100,000 unknown keys, one of them 10,000 characters long. */
const hugeRequest = () => ({
  node: 'node-a',
  cluster: 'prod',
  ['x'.repeat(10_000)]: true,
  ...Object.fromEntries(Array.from({ length: UNKNOWN_KEYS - 1 }, (_, i) => [`unknown-${i}`, i])),
});
const FEW_KB = 4_096;

/** Everything the handler writes to stdout and stderr while `act` runs. */
async function capturingOutput(act: () => Promise<unknown>): Promise<{ output: string; error: unknown }> {
  let output = '';
  const capture = (chunk: unknown) => {
    output += String(chunk);
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await act();
    return { output, error: undefined };
  } catch (error) {
    return { output, error };
  } finally {
    vi.restoreAllMocks();
  }
}

const expectBounded = (error: unknown, logs: string) => {
  expect(error).toMatchObject({ name: 'ValidationError' });
  const { message } = error as Error;
  expect(message).toMatch(/^invalid fence request: \(root\): unrecognized keys "x{120}…", "unknown-0", /);
  expect(message).toContain(`and ${UNKNOWN_KEYS - 5} more keys`);
  expect(message.length).toBeLessThan(1_000);
  expect(JSON.stringify(error).length + String((error as Error).cause ?? '').length).toBeLessThan(FEW_KB);
  expect(logs).toContain('invocation failed');
  expect(logs.length).toBeLessThan(FEW_KB);
  expect(fake.workflow.runs.size).toBe(0);
};

describe('a manual request with 100,000 unknown keys', () => {
  beforeEach(() => {
    fake = fakeDeps({ nodes: [], vas: [], pvs: [] });
    fcLines.length = 0;
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('AWS: the error names 5 keys and counts the rest; the logs stay a few KB', async () => {
    const { handler } = await import('../../../functions/manual/index.js');
    const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

    const { output, error } = await capturingOutput(() => handler(hugeRequest(), context));

    expectBounded(error, output);
  });

  it('Alibaba Cloud: the error names 5 keys and counts the rest; the logs stay a few KB', async () => {
    const { handler } = await import('../../../functions-fc/manual/index.js');
    const context = {
      requestId: 'req-1',
      credentials: { accessKeyId: 'id', accessKeySecret: 'secret', securityToken: 'token' },
    };
    const payload = Buffer.from(JSON.stringify(hugeRequest()));

    const { output, error } = await capturingOutput(() => handler(payload, context));

    expectBounded(error, output + fcLines.join('\n'));
  });
});
