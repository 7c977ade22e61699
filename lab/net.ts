import { get } from 'node:https';
import { createServer } from 'node:net';

/** A TCP port that is free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** GET over HTTPS; resolves with status and body. `ca` pins the lab CA; without it any certificate is accepted. */
export function httpsGet(
  url: string,
  options: { ca?: string | Buffer; token?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get(
      url,
      {
        ca: options.ca,
        rejectUnauthorized: options.ca !== undefined,
        headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
        timeout: 3000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}
