/**
 * Every function's middy stack, so a handler is only parse → use case → return:
 * 1. Powertools `injectLambdaContext`: the request id, function and cold start in every log line, its
 *    keys reset after each invocation;
 * 2. Powertools `logMetrics`: the cold-start metric, and the invocation's own metric flushed after it;
 * 3. Powertools `captureLambdaHandler`: the invocation as an X-Ray subsegment (tracing.ts), its errors
 *    recorded, its response not;
 * 4. the invocation: the event parsed at the edge (a bad one is a ValidationError before any use case
 *    runs), its keys (run id, event id) added to every log line, to the metrics' metadata and to the
 *    trace's annotations, the completed invocation counted (`heartbeat`, which a missing-data alarm
 *    watches), and an error logged with its cause before it leaves.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Telemetry } from '../../lib/observability/index.js';
import { tracer } from './tracing.js';

export interface HandlerOptions<TEvent> {
  /** Parses the raw event; throws (ValidationError) when it is not what the function takes. */
  readonly parse: (event: unknown) => TEvent;
  /** The metric counting completed invocations, e.g. `HealthChecks`. */
  readonly heartbeat: string;
  /** Keys of this invocation for every log line (and the metrics' metadata), e.g. the run id. */
  readonly keys?: (event: TEvent, raw: unknown, context: Context) => Readonly<Record<string, string>>;
}

/** The invocation middleware (4. above). */
export function invocation<TEvent>(
  telemetry: Telemetry,
  options: HandlerOptions<TEvent>,
): MiddlewareObj<unknown, unknown, Error, Context> {
  return {
    before(request) {
      const raw = request.event;
      const event = options.parse(raw);
      request.event = event;
      const keys = options.keys?.(event, raw, request.context);
      if (keys) telemetry.scope(keys);
      for (const [key, value] of Object.entries(keys ?? {})) tracer.putAnnotation(key, value);
    },
    after() {
      telemetry.metrics.addMetric(options.heartbeat, MetricUnit.Count, 1);
      telemetry.endInvocation();
    },
    onError(request) {
      telemetry.logger.error('invocation failed', { error: request.error ?? undefined });
      telemetry.endInvocation();
    },
  };
}

/** Wraps `fn` in the project's middlewares (see the top of this file). */
export function fencerHandler<TEvent, TResult>(
  telemetry: Telemetry,
  options: HandlerOptions<TEvent>,
  fn: (event: TEvent, context: Context) => Promise<TResult>,
) {
  return middy<unknown, TResult, Error, Context>((event: unknown, context: Context) =>
    fn(event as TEvent, context),
  )
    .use(injectLambdaContext(telemetry.logger, { resetKeys: true }))
    .use(logMetrics(telemetry.metrics, { captureColdStartMetric: true }))
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(invocation(telemetry, options));
}

/** `id` of a raw EventBridge event, for the logs, when it has one (a malformed event may not). */
export const eventIdOf = (raw: unknown): Readonly<Record<string, string>> => {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? { eventId: id.slice(0, 128) } : {};
};
