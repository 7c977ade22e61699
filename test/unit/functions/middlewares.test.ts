/**
 * What on-call sees from a function: the middy stack of every handler (functions/shared/handler.ts) with
 * the real Powertools logger and metrics, their output captured as the Lambda runtime would ship it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fencerHandler } from '../../../functions/shared/handler.js';
import { KubeCluster } from '../../../lib/adapters/kubernetes/index.js';
import { parseOrThrow } from '../../../lib/config/parse.js';
import { stepStateSchema } from '../../../lib/config/step-state.js';
import { createTelemetry } from '../../../lib/observability/index.js';
import { captureOutput } from '../../support/output.js';
import { REQUEST_DEFAULTS } from './support/fakes.js';

const context = (requestId: string) =>
  ({
    awsRequestId: requestId,
    functionName: 'kube-fencer-step',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:kube-fencer-step',
    memoryLimitInMB: '512',
    getRemainingTimeInMillis: () => 60_000,
  }) as unknown as Context;

const state = (runId: string) => ({
  request: { ...REQUEST_DEFAULTS, node: 'node-a', cluster: 'prod' },
  run: { id: runId, startedAt: '2026-02-02T17:00:00Z' },
  attempts: { count: 0 },
});

const isEmf = (l: Record<string, unknown>) => '_aws' in l;
const emfMetrics = (l: Record<string, unknown>) =>
  (
    (l._aws as { CloudWatchMetrics: { Metrics: { Name: string }[]; Dimensions: string[][] }[] })
      .CloudWatchMetrics[0]?.Metrics ?? []
  ).map((m) => m.Name);
const emfDimensions = (l: Record<string, unknown>) =>
  (l._aws as { CloudWatchMetrics: { Dimensions: string[][] }[] }).CloudWatchMetrics[0]?.Dimensions.flat();

/** A handler like functions/step's, whose use case logs, counts and may fail. */
const stepLike = (telemetry = createTelemetry({ cluster: 'prod' })) =>
  fencerHandler(
    telemetry,
    {
      parse: (event) => parseOrThrow(stepStateSchema, event, 'step state'),
      heartbeat: 'Steps',
      keys: (s) => ({ runId: s.run.id, node: s.request.node }),
    },
    async (s) => {
      telemetry.log.info('step done', { phase: 'Assess' });
      telemetry.counters.count('FencingRuns', { outcome: 'refused' });
      if (s.run.id === 'run-fails') throw new Error('EC2 said no', { cause: new Error('throttled') });
      return s.run.id;
    },
  );

describe('every function’s middlewares', () => {
  // What the Lambda runtime sets for an on-demand function; Powertools reports cold starts only then.
  const saved = process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
  beforeAll(() => {
    process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
    else process.env.AWS_LAMBDA_INITIALIZATION_TYPE = saved;
  });

  it('put the cluster, the run id and the Lambda request in every log line, and reset them after the invocation', async () => {
    const handler = stepLike();

    const first = await captureOutput(() => handler(state('run-1'), context('req-1')));
    const second = await captureOutput(() => handler(state('run-2'), context('req-2')));

    const logs = (o: typeof first) => o.lines.filter((l) => !isEmf(l));
    expect(logs(first)).toContainEqual(
      expect.objectContaining({
        message: 'step done',
        cluster: 'prod',
        runId: 'run-1',
        node: 'node-a',
        function_request_id: 'req-1',
        function_name: 'kube-fencer-step',
        cold_start: true,
        phase: 'Assess',
      }),
    );
    expect(logs(second)).toContainEqual(
      expect.objectContaining({
        message: 'step done',
        runId: 'run-2',
        function_request_id: 'req-2',
        cold_start: false,
      }),
    );
    expect(second.text).not.toContain('run-1');
  });

  it('publish every metric with the cluster as a dimension and the run id as searchable metadata, the cold start once', async () => {
    const handler = stepLike();

    const first = await captureOutput(() => handler(state('run-1'), context('req-1')));
    const second = await captureOutput(() => handler(state('run-2'), context('req-2')));

    const counted = first.lines.filter(isEmf).find((l) => emfMetrics(l).includes('FencingRuns'));
    expect(counted).toMatchObject({
      cluster: 'prod',
      service: 'kube-fencer',
      outcome: 'refused',
      runId: 'run-1',
    });
    expect(emfDimensions(counted ?? {})).toEqual(expect.arrayContaining(['cluster', 'service', 'outcome']));
    expect(emfDimensions(counted ?? {})).not.toContain('runId');
    const names = (o: typeof first) => o.lines.filter(isEmf).flatMap(emfMetrics);
    expect(names(first)).toEqual(expect.arrayContaining(['ColdStart', 'FencingRuns', 'Steps']));
    expect(names(second)).not.toContain('ColdStart');
    expect(names(second)).toContain('Steps');
    const heartbeat = second.lines.filter(isEmf).find((l) => emfMetrics(l).includes('Steps'));
    expect(emfDimensions(heartbeat ?? {})).toEqual(expect.arrayContaining(['cluster', 'service']));
  });

  it('log a failure with its cause before it leaves the function, and count no completed invocation', async () => {
    const handler = stepLike();

    const out = await captureOutput(() =>
      handler(state('run-fails'), context('req-3')).catch((e: Error) => e),
    );

    expect(out.value).toMatchObject({ message: 'EC2 said no' });
    const failure = out.lines.find((l) => l.message === 'invocation failed');
    expect(failure).toMatchObject({
      level: 'ERROR',
      cluster: 'prod',
      runId: 'run-fails',
      error: expect.objectContaining({
        message: 'EC2 said no',
        cause: expect.objectContaining({ message: 'throttled' }),
      }),
    });
    expect(out.lines.filter(isEmf).flatMap(emfMetrics)).not.toContain('Steps');
  });

  it('refuse an event that does not parse before the use case runs, with a ValidationError in the log', async () => {
    const telemetry = createTelemetry({ cluster: 'prod' });
    let ran = false;
    const handler = fencerHandler(
      telemetry,
      { parse: (event) => parseOrThrow(stepStateSchema, event, 'step state'), heartbeat: 'Steps' },
      async () => {
        ran = true;
      },
    );

    const out = await captureOutput(() =>
      handler({ request: { node: 'x' } }, context('req-4')).catch((e: Error) => e),
    );

    expect(out.value).toMatchObject({ name: 'ValidationError' });
    expect(ran).toBe(false);
    expect(out.lines.find((l) => l.message === 'invocation failed')).toMatchObject({
      error: expect.objectContaining({ name: 'ValidationError' }),
    });
  });
});

describe('the adapters log through the function’s logger', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // An API server that forbids everything, as one does to an identity without RBAC.
    server = createServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          status: 'Failure',
          reason: 'Forbidden',
          code: 403,
          message: 'events is forbidden',
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('so a Kubernetes Event that could not be written shows up with the run it belongs to', async () => {
    const telemetry = createTelemetry({ cluster: 'prod' });
    const handler = fencerHandler(
      telemetry,
      {
        parse: (event) => parseOrThrow(stepStateSchema, event, 'step state'),
        heartbeat: 'Steps',
        keys: (s) => ({ runId: s.run.id }),
      },
      async () => {
        const http = await import('node:http');
        const cluster = new KubeCluster(
          { server: url, auth: async () => ({ agent: new http.Agent(), headers: {} }) },
          { logger: telemetry.log },
        );
        await cluster.recordNodeEvent('node-a', {
          type: 'Warning',
          reason: 'FencingRefused',
          message: 'NodeReady',
          action: 'Refuse',
        });
      },
    );

    const out = await captureOutput(() => handler(state('run-7'), context('req-5')));

    expect(out.lines).toContainEqual(
      expect.objectContaining({
        level: 'WARN',
        message: 'could not record a Kubernetes Event on the node',
        cluster: 'prod',
        runId: 'run-7',
        statusCode: 403,
      }),
    );
  });
});
