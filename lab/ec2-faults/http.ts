/** The HTTP plumbing of the fault injector: read a body, pass a call on to moto, answer. */
import { type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { Ec2Answer } from './query-protocol.js';

export interface Upstream extends Ec2Answer {
  readonly headers: IncomingHttpHeaders;
}

export const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** Passes the call to moto as it came (moto does not check signatures) and reads the whole answer. */
export function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const upstream = request(
      new URL(req.url ?? '/', target),
      {
        method: req.method,
        headers: { ...req.headers, host: target.host, 'content-length': String(body.length) },
      },
      (res) => {
        readBody(res).then(
          (b) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: b.toString('utf8') }),
          reject,
        );
      },
    );
    upstream.on('error', reject);
    upstream.end(body);
  });
}

/** Answers with `answer` and its headers (length recomputed, hop-by-hop headers dropped). */
export const send = (res: ServerResponse, answer: Ec2Answer): void => {
  if (res.destroyed) return;
  const { 'transfer-encoding': _te, connection: _c, 'content-length': _cl, ...kept } = answer.headers ?? {};
  res.writeHead(answer.status, {
    'content-type': 'text/xml;charset=UTF-8',
    ...kept,
    'content-length': Buffer.byteLength(answer.body),
  });
  res.end(answer.body);
};
