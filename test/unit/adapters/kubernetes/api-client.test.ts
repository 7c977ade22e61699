/** The REST client against a real local HTTP server: requests, errors, stale connections and watches. */
import { once } from 'node:events';
import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, ApiStatusError } from '../../../../lib/adapters/kubernetes/api/api-client.js';
import type { ApiEndpoint } from '../../../../lib/adapters/kubernetes/api/endpoint.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

let server: Server | undefined;
const agents: Agent[] = [];

afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  server?.closeAllConnections();
  if (server?.listening) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server answering with `answer`; records each request and how many connections it got. */
async function serve(answer: (seen: Seen, response: ServerResponse, nthOnSocket: number) => void) {
  const seen: Seen[] = [];
  const perSocket = new Map<Socket, number>();
  server = createServer((request, response) => {
    const n = (perSocket.get(request.socket) ?? 0) + 1;
    perSocket.set(request.socket, n);
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const one = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      seen.push(one);
      answer(one, response, n);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const agent = new Agent({ keepAlive: true });
  agents.push(agent);
  const endpoint: ApiEndpoint = {
    server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    auth: async () => ({ agent, headers: { Authorization: 'Bearer t0k' } }),
  };
  return { seen, connections: () => perSocket.size, endpoint };
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
};

describe('ApiClient.call', () => {
  it('sends the method, path, query (without undefined entries), credentials and body, and parses JSON', async () => {
    const { seen, endpoint } = await serve((_, response) => json(response, 200, { kind: 'Node' }));
    const api = new ApiClient(endpoint);

    const answer = await api.call({
      method: 'PATCH',
      path: '/api/v1/nodes/node-a',
      query: { fieldManager: 'kube-fencer', dryRun: undefined },
      body: { metadata: { resourceVersion: '7' } },
      contentType: 'application/merge-patch+json',
    });

    expect(answer).toEqual({ kind: 'Node' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'PATCH',
      url: '/api/v1/nodes/node-a?fieldManager=kube-fencer',
      body: '{"metadata":{"resourceVersion":"7"}}',
      headers: { authorization: 'Bearer t0k', 'content-type': 'application/merge-patch+json' },
    });
  });

  it('rejects a non-2xx answer with its status and the Status body', async () => {
    const status = { kind: 'Status', code: 409, message: 'the object has been modified' };
    const { endpoint } = await serve((_, response) => json(response, 409, status));

    const call = new ApiClient(endpoint).call({ method: 'GET', path: '/api/v1/nodes/node-a' });

    await expect(call).rejects.toBeInstanceOf(ApiStatusError);
    await expect(call).rejects.toMatchObject({ statusCode: 409, body: JSON.stringify(status) });
  });

  it('sends a call again on a new connection when a kept-alive one turns out closed', async () => {
    // The server drops every connection at its second request, unanswered: a stale keep-alive socket.
    const { seen, connections, endpoint } = await serve((_, response, nth) => {
      if (nth === 2) response.socket?.destroy();
      else json(response, 200, { n: seen.length });
    });
    const api = new ApiClient(endpoint);

    const first = await api.call({ method: 'GET', path: '/version' });
    const second = await api.call({ method: 'DELETE', path: '/api/v1/namespaces/x/pods/p' });

    expect([first, second]).toEqual([{ n: 1 }, { n: 3 }]);
    expect(connections()).toBe(2);
  });

  it('does not send a call again when a new connection fails', async () => {
    const { seen, endpoint } = await serve((_, response) => response.socket?.destroy());

    const call = new ApiClient(endpoint).call({ method: 'GET', path: '/version' });

    await expect(call).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(seen).toHaveLength(1);
  });

  it('gives up on a server that does not answer, saying so', async () => {
    const { endpoint } = await serve(() => undefined);

    const call = new ApiClient(endpoint, { timeoutMs: 200 }).call({ method: 'GET', path: '/version' });

    await expect(call).rejects.toThrow('no answer from the API server within 0.2 s');
  });
});

describe('ApiClient.watch', () => {
  it('hands over each event line and reports the end of the stream', async () => {
    const { seen, endpoint } = await serve((_, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MOD');
      response.end('IFIED","object":{"metadata":{"name":"a"}}}\n');
    });
    const events: string[] = [];
    let closed: unknown = 'open';

    await new ApiClient(endpoint).watch(
      '/api/v1/nodes',
      { fieldSelector: 'metadata.name=a' },
      (type) => events.push(type),
      (error) => {
        closed = error;
      },
    );
    await expect.poll(() => closed).toBeUndefined();

    expect(events).toEqual(['ADDED', 'MODIFIED']);
    expect(seen[0]?.url).toBe('/api/v1/nodes?fieldSelector=metadata.name%3Da&watch=true');
  });

  it('reports a refused watch with its status', async () => {
    const { endpoint } = await serve((_, response) => json(response, 403, { message: 'forbidden' }));
    let closed: unknown;

    await new ApiClient(endpoint).watch(
      '/api/v1/pods',
      {},
      () => undefined,
      (error) => {
        closed = error;
      },
    );

    await expect.poll(() => closed).toBeInstanceOf(ApiStatusError);
    expect(closed).toMatchObject({ statusCode: 403 });
  });

  it('calls nothing back once stopped', async () => {
    const { endpoint } = await serve((_, response) => {
      response.writeHead(200);
      response.write('{"type":"ADDED","object":{}}\n');
    });
    const events: string[] = [];
    const closes: unknown[] = [];
    const stop = await new ApiClient(endpoint).watch(
      '/api/v1/pods',
      {},
      (type) => events.push(type),
      (error) => closes.push(error),
    );
    await expect.poll(() => events).toEqual(['ADDED']);

    stop();
    server?.closeAllConnections();
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(closes).toEqual([]);
  });
});
