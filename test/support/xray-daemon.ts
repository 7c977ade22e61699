/**
 * A stand-in for the X-Ray daemon Lambda runs beside a function: a UDP socket on 127.0.0.1 that keeps
 * every document the X-Ray SDK sends (`{"format":"json","version":1}\n<segment>`), and the environment
 * under which a handler in a process of its own traces as it would in Lambda with active tracing.
 */

import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';

/** A (sub)segment as the SDK sends it; only what the tests read. */
export interface XraySegment {
  readonly name: string;
  readonly trace_id?: string;
  readonly parent_id?: string;
  readonly namespace?: string;
  readonly annotations?: Record<string, unknown>;
  readonly aws?: { readonly operation?: string };
  readonly http?: { readonly request?: { readonly url?: string; readonly method?: string } };
  readonly subsegments?: readonly XraySegment[];
}

export interface XrayDaemon {
  /** The trace id every invocation under {@link lambdaEnv} belongs to. */
  readonly traceId: string;
  /** What a function with active tracing finds in its environment, pointed at this daemon. */
  readonly lambdaEnv: Readonly<Record<string, string>>;
  /** Every segment received so far, nested subsegments flattened beside their parents. */
  segments(): XraySegment[];
  close(): Promise<void>;
}

const flatten = (s: XraySegment): XraySegment[] => [s, ...(s.subsegments ?? []).flatMap(flatten)];

export async function startXrayDaemon(): Promise<XrayDaemon> {
  const socket = createSocket('udp4');
  const received: XraySegment[] = [];
  socket.on('message', (message) => {
    const [, body] = message.toString('utf8').split('\n', 2);
    if (body) received.push(JSON.parse(body) as XraySegment);
  });
  await new Promise<void>((done) => socket.bind(0, '127.0.0.1', done));
  const { port } = socket.address();
  const traceId = `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
  return {
    traceId,
    lambdaEnv: {
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      LAMBDA_TASK_ROOT: process.cwd(),
      _HANDLER: 'index.handler',
      _X_AMZN_TRACE_ID: `Root=${traceId};Parent=${randomBytes(8).toString('hex')};Sampled=1`,
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${port}`,
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    },
    segments: () => received.flatMap(flatten),
    close: () => new Promise((done) => socket.close(() => done())),
  };
}
