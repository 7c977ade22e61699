/**
 * The controller's HTTP side: `/healthz` (the process answers), `/readyz` (it reached the API server and
 * follows the cluster: leader or standby, it can take over), and `/metrics` for Prometheus. Nothing
 * else is served; nothing here acts.
 */
import { createServer, type Server } from 'node:http';

export interface Probes {
  readonly ready: () => boolean;
  readonly leading: () => boolean;
  readonly metrics: () => Promise<{ contentType: string; body: string }>;
}

/** `host:port` (or `:port`, or a port alone) into its parts. */
export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]*):)?(\d{1,5})$/.exec(listen.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535) throw new Error(`--listen ${listen}: expected host:port, :port or a port`);
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '');
  return { host: host || '0.0.0.0', port };
}

export async function startProbesServer(listen: string, probes: Probes): Promise<Server> {
  const { host, port } = parseListen(listen);
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'method not allowed\n');
    if (path === '/healthz' || path === '/livez') return send(200, 'ok\n');
    if (path === '/readyz') {
      return probes.ready()
        ? send(200, probes.leading() ? 'ok: leading\n' : 'ok: standing by\n')
        : send(503, 'not ready: the API server has not answered yet\n');
    }
    if (path === '/metrics') {
      probes.metrics().then(
        ({ contentType, body }) => send(200, body, contentType),
        (error: unknown) => send(500, `metrics: ${(error as Error).message}\n`),
      );
      return;
    }
    send(404, 'not found: /healthz, /readyz, /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
