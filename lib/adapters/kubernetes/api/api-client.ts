/**
 * The Kubernetes REST API on node:http(s): JSON requests and watch streams, and raw answers for the
 * largest lists, read in protobuf (./protobuf.ts). The adapter reads a handful of fields of each
 * object; a generated client would add megabytes to every Lambda bundle and deserialise fields nobody
 * reads.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
// The module object, read at each call: a tracer that wraps `https.request` (X-Ray on Lambda) sees our
// requests, which a binding taken at import would hide from it.
import https from 'node:https';
import type { ApiEndpoint } from './endpoint.js';
import { decodeStatus, PROTOBUF_CONTENT_TYPE } from './protobuf.js';

/** A non-2xx answer: its status, and the body (a `Status` object in JSON, as a rule). */
export class ApiStatusError extends Error {
  override readonly name = 'ApiStatusError';
  readonly statusCode: number;
  readonly body: string;
  /** The API server's clock when it answered (its `Date` header), if it sent one. */
  readonly serverTime: Date | undefined;

  constructor(statusCode: number, body: string, serverTime?: Date) {
    super(`HTTP ${statusCode}`);
    this.statusCode = statusCode;
    this.body = body;
    this.serverTime = serverTime;
  }
}

/** A reused keep-alive connection that turned out closed: nothing was answered on it. */
class StaleConnectionError extends Error {
  constructor(cause: Error) {
    super(`kept-alive connection was closed by the server: ${cause.message}`, { cause });
  }
}

/** One request. `query` entries that are `undefined` are left out. */
export interface ApiCall {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  /** @default 'application/json' */
  readonly contentType?: string;
  /** The representation asked for, e.g. a server-side Table. @default 'application/json' */
  readonly accept?: string;
}

/** Called once per watch event: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. */
export type WatchHandler = (type: string, object: unknown) => void;

/** How long a request (not a watch) may take, connection included. */
export const REQUEST_TIMEOUT_MS = 30_000;

export class ApiClient {
  readonly #endpoint: ApiEndpoint;
  readonly #timeoutMs: number;

  constructor(endpoint: ApiEndpoint, options: { readonly timeoutMs?: number } = {}) {
    this.#endpoint = endpoint;
    this.#timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  }

  /**
   * Sends `call` and parses the answer; rejects with {@link ApiStatusError} on a non-2xx status.
   * A kept-alive connection the server closed while it sat idle (a Lambda frozen between invocations)
   * fails before any answer: the call is sent once more on a new connection. Every write the adapter
   * makes is conditional (resourceVersion, UID), so a write that did land is not applied twice.
   */
  async call<T>(call: ApiCall): Promise<T> {
    return (await this.exchange<T>(call)).body;
  }

  /**
   * Like {@link call}, with the API server's clock: its `Date` header (one-second resolution). Claims
   * are judged on it, so no writer's clock, fast or slow, can expire another writer's claim.
   */
  async exchange<T>(call: ApiCall): Promise<{ readonly body: T; readonly serverTime: Date | undefined }> {
    const answer = await this.#roundTrip(call);
    return { body: JSON.parse(answer.body.toString('utf8')) as T, serverTime: answer.serverTime };
  }

  /**
   * Like {@link call}, for a representation that may be binary: the body's bytes and its
   * `Content-Type`. A protobuf error answer is decoded into the JSON `Status` it stands for.
   */
  async callRaw(call: ApiCall): Promise<{ readonly body: Buffer; readonly contentType: string }> {
    const answer = await this.#roundTrip(call);
    return { body: answer.body, contentType: answer.contentType };
  }

  async #roundTrip(
    call: ApiCall,
  ): Promise<{ body: Buffer; contentType: string; serverTime: Date | undefined }> {
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    let response: IncomingMessage;
    try {
      response = await this.#send(call, payload);
    } catch (error) {
      if (!(error instanceof StaleConnectionError)) throw error;
      response = await this.#send(call, payload);
    }
    const body = await readBody(response);
    const status = response.statusCode ?? 0;
    const contentType = response.headers['content-type'] ?? '';
    const date = response.headers.date ? new Date(response.headers.date) : undefined;
    const serverTime = date && !Number.isNaN(date.getTime()) ? date : undefined;
    if (status < 200 || status > 299) {
      const text = contentType.startsWith(PROTOBUF_CONTENT_TYPE) ? statusText(body) : body.toString('utf8');
      throw new ApiStatusError(status, text, serverTime);
    }
    return { body, contentType, serverTime };
  }

  async #send(call: ApiCall, payload: string | undefined): Promise<IncomingMessage> {
    const request = await this.#open(call.method, call.path, call.query ?? {}, {
      ...(call.accept ? { Accept: call.accept } : {}),
      ...(payload === undefined
        ? {}
        : {
            'Content-Type': call.contentType ?? 'application/json',
            'Content-Length': String(Buffer.byteLength(payload)),
          }),
    });
    request.setTimeout(this.#timeoutMs, () =>
      request.destroy(new Error(`no answer from the API server within ${this.#timeoutMs / 1000} s`)),
    );
    return new Promise<IncomingMessage>((resolve, reject) => {
      request.once('response', resolve).once('error', (error: NodeJS.ErrnoException) => {
        const stale = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        reject(stale ? new StaleConnectionError(error) : error);
      });
      request.end(payload);
    });
  }

  /**
   * Starts a watch on `path`. `onEvent` gets each event; `onClose` is called once, with the error
   * that ended the stream (an {@link ApiStatusError} for a refused watch) or none when the server
   * closed it. The returned function stops the watch; `onClose` is not called after it.
   */
  async watch(
    path: string,
    query: Readonly<Record<string, string>>,
    onEvent: WatchHandler,
    onClose: (error?: unknown) => void,
  ): Promise<() => void> {
    const request = await this.#open('GET', path, { ...query, watch: 'true' }, {});
    let stopped = false;
    const close = (error?: unknown): void => {
      if (stopped) return;
      stopped = true;
      onClose(error);
    };
    request.once('error', close);
    request.once('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status !== 200) {
        readBody(response).then((body) => close(new ApiStatusError(status, body.toString('utf8'))), close);
        return;
      }
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffered += chunk;
        let newline = buffered.indexOf('\n');
        while (newline >= 0 && !stopped) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line) {
            let event: { type?: string; object?: unknown };
            try {
              event = JSON.parse(line) as typeof event;
            } catch (error) {
              close(error);
              request.destroy();
              return;
            }
            onEvent(event.type ?? 'ERROR', event.object);
          }
          newline = buffered.indexOf('\n');
        }
      });
      response.once('end', () => close());
      response.once('error', close);
    });
    request.end();
    return () => {
      stopped = true;
      request.destroy();
    };
  }

  async #open(
    method: ApiCall['method'],
    path: string,
    query: Readonly<Record<string, string | undefined>>,
    headers: Readonly<Record<string, string>>,
  ): Promise<ClientRequest> {
    const url = new URL(`${this.#endpoint.server}${path}`);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    const auth = await this.#endpoint.auth();
    const send = url.protocol === 'https:' ? https.request : httpRequest;
    return send(url, {
      method,
      agent: auth.agent,
      headers: { Accept: 'application/json', ...auth.headers, ...headers },
    });
  }
}

async function readBody(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A protobuf `Status` as JSON text; bytes that do not decode are kept as they came. */
function statusText(body: Buffer): string {
  try {
    return decodeStatus(body);
  } catch {
    return body.toString('utf8');
  }
}
