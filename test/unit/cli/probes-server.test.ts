/** The controller's probes server: what each path answers, on a real socket. */
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseListen, startProbesServer } from '../../../cli/controller/probes-server.js';

describe('--listen', () => {
  it('reads host:port, :port, a port alone and IPv6', () => {
    expect(parseListen('127.0.0.1:9090')).toEqual({ host: '127.0.0.1', port: 9090 });
    expect(parseListen(':8080')).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(parseListen('8080')).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(parseListen('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
  });

  it('refuses what is not an address', () => {
    for (const bad of ['', 'localhost', '127.0.0.1:', '127.0.0.1:99999', 'a:b:c']) {
      expect(() => parseListen(bad)).toThrow(/--listen/);
    }
  });
});

describe('the probes server', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  const serve = async (state: { ready: boolean; leading: boolean }) => {
    server = await startProbesServer('127.0.0.1:0', {
      ready: () => state.ready,
      leading: () => state.leading,
      metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: 'kube_fencer_leader 1\n' }),
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return async (path: string, method = 'GET') => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
      return {
        status: response.status,
        body: await response.text(),
        type: response.headers.get('content-type'),
      };
    };
  };

  it('answers /healthz always, and /readyz only once ready, saying whether it leads', async () => {
    const state = { ready: false, leading: false };
    const get = await serve(state);
    expect((await get('/healthz')).status).toBe(200);
    expect(await get('/readyz')).toMatchObject({ status: 503 });
    state.ready = true;
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ok: standing by\n' });
    state.leading = true;
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ok: leading\n' });
  });

  it('serves /metrics in the exposition format, and nothing else', async () => {
    const get = await serve({ ready: true, leading: true });
    expect(await get('/metrics')).toMatchObject({
      status: 200,
      body: 'kube_fencer_leader 1\n',
      type: 'text/plain; version=0.0.4',
    });
    expect((await get('/other')).status).toBe(404);
    expect((await get('/metrics', 'POST')).status).toBe(405);
  });
});
