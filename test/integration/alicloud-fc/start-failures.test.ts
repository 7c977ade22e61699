/**
 * No lost event on Alibaba Cloud: the Function Compute event router and manual invoke, with the real
 * FC adapter and SDK against the lab's Function Compute, behind a front that answers 503 (FC refusing
 * or throttling the start of a run) until it recovers. A start that failed fails the invocation, after
 * the batch's other nodes were tried, so EventBridge delivers the batch again; the retry starts each
 * run once (run names are deterministic). The cluster is a fake of our own port.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FcEmulator, startFcEmulator } from '../../../lab/fc-emulator/index.js';
import { createFcClient, FcAsyncWorkflow } from '../../../lib/adapters/alicloud-fc/index.js';
import type { TriggerDeps } from '../../../lib/app/triggers/index.js';
import { createFcTelemetry } from '../../../lib/observability/fc.js';
import { fakeDeps, node, REQUEST_DEFAULTS } from '../../unit/functions/support/fakes.js';

const ROLE = { accessKeyId: 'LTAI-router-role', accessKeySecret: 'router-secret' };
const CREDENTIALS = { ...ROLE, securityToken: `lab-sts-${ROLE.accessKeyId}` };
const RUN_FUNCTION = 'prod-run';

let emulator: FcEmulator;
let front: { endpoint: string; server: Server; down: boolean; refused: number };
const state: { deps?: TriggerDeps } = {};

vi.mock('../../../functions-fc/shared/runtime.js', () => ({
  settings: { cluster: 'prod' },
  telemetry: createFcTelemetry({ level: 'ERROR', write: () => {} }),
  triggerDeps: async () => state.deps,
  triggerSettings: { cluster: 'prod', requestDefaults: REQUEST_DEFAULTS },
}));

/** Function Compute as the router sees it: the emulator, or 503 for every invocation while `down`. */
async function startFront(upstream: string) {
  const target = new URL(upstream);
  const self = { endpoint: '', server: undefined as unknown as Server, down: false, refused: 0 };
  self.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (self.down && req.method === 'POST' && req.url?.includes('/invocations')) {
        self.refused++;
        res.writeHead(503, { 'Content-Type': 'application/json', 'x-fc-request-id': 'refused' });
        res.end(JSON.stringify({ Code: 'ResourceThrottled', Message: 'Function Compute is busy' }));
        return;
      }
      const forward = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => self.server.listen(0, '127.0.0.1', resolve));
  self.endpoint = `http://127.0.0.1:${(self.server.address() as AddressInfo).port}`;
  return self;
}

/**
 * A run function that answers "fenced" at once, as the real one answers (an object, which the runtime
 * serialises): a finished run is found as a duplicate, never restarted, whether or not it has ended
 * by the time the batch comes again. (It once answered a string, serialised twice: a run that had
 * ended read as failed, and the batch's third delivery started a second one when the first was quick.)
 */
function runFunctionDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fc-run-'));
  writeFileSync(join(dir, 'index.mjs'), `export const handler = async () => ({ outcome: 'fenced' });\n`);
  return dir;
}

const unreachable = (name: string, id: string) => ({
  id,
  source: 'kube-fencer',
  specversion: '1.0',
  type: 'kube-fencer:Node:Unreachable',
  time: '2026-02-02T17:05:00Z',
  data: { cluster: 'prod', node: name },
});
const batch = Buffer.from(JSON.stringify([unreachable('node-a', 'evt-1'), unreachable('node-b', 'evt-2')]));
const context = { requestId: 'req-1', credentials: CREDENTIALS };

beforeAll(async () => {
  emulator = await startFcEmulator({ region: 'cn-hangzhou', roleKey: ROLE, retryDelayMs: 50 });
  emulator.deploy({
    name: RUN_FUNCTION,
    codeDir: runFunctionDir(),
    environment: {},
    timeoutSeconds: 30,
    async: { asyncTask: true, maxAsyncRetryAttempts: 0 },
  });
  front = await startFront(emulator.endpoint);
});
afterAll(async () => {
  front?.server.close();
  await emulator?.stop();
});

beforeEach(() => {
  const client = createFcClient({
    region: 'cn-hangzhou',
    credentials: CREDENTIALS,
    endpoint: front.endpoint,
    connectTimeoutMs: 5_000,
    readTimeoutMs: 10_000,
  });
  const workflow = new FcAsyncWorkflow({ functionName: RUN_FUNCTION, client });
  const world = {
    nodes: [node('node-a', undefined), node('node-b', undefined), node('node-c', undefined)],
    maxInFlight: 10,
  };
  state.deps = fakeDeps(world, undefined).deps;
  state.deps = { ...state.deps, workflow };
});

const tasksFor = (nodeName: string) =>
  emulator.tasks(RUN_FUNCTION).filter((t) => t.taskId.includes(`-${nodeName}-`));

describe('a run Function Compute refuses to start', () => {
  it('fails the event router’s invocation after trying every node of the batch; the retry after FC recovers starts each run once', async () => {
    const { handler } = await import('../../../functions-fc/event-router/index.js');
    front.down = true;
    front.refused = 0;

    await expect(handler(batch, context)).rejects.toMatchObject({
      name: 'RunStartError',
      message: expect.stringMatching(/^2 run\(s\) could not be started: node-a: .*; node-b: /),
    });
    expect(front.refused).toBe(2);
    expect(emulator.tasks(RUN_FUNCTION)).toHaveLength(0);

    front.down = false;
    const retried = await handler(batch, context);
    expect(retried.outcomes.map((o) => [o.node, o.result])).toEqual([
      ['node-a', 'started'],
      ['node-b', 'started'],
    ]);
    // EventBridge may deliver it once more, after the runs ended: they are found, not doubled.
    await vi.waitFor(() => {
      expect(emulator.tasks(RUN_FUNCTION).map((t) => t.status)).toEqual(['Succeeded', 'Succeeded']);
    });
    const again = await handler(batch, context);
    expect(again.outcomes.map((o) => o.result)).toEqual(['duplicate', 'duplicate']);
    expect([tasksFor('node-a').length, tasksFor('node-b').length]).toEqual([1, 1]);
  });

  it('fails the manual invoke while FC refuses, and starts the run once when it is invoked again', async () => {
    const { handler } = await import('../../../functions-fc/manual/index.js');
    const requestFor = Buffer.from(JSON.stringify({ node: 'node-c', cluster: 'prod' }));
    front.down = true;

    await expect(handler(requestFor, context)).rejects.toMatchObject({ name: 'RunStartError' });
    expect(tasksFor('node-c')).toHaveLength(0);

    front.down = false;
    expect(await handler(requestFor, context)).toMatchObject({ result: 'started', node: 'node-c' });
    expect(await handler(requestFor, context)).toMatchObject({ result: 'duplicate', node: 'node-c' });
    expect(tasksFor('node-c')).toHaveLength(1);
  });
});
