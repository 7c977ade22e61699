/**
 * The restful client against a real local HTTPS server whose certificate is made like the mgr's own
 * (self-signed, CN=ceph-restful, no subjectAltName): requests, answers, pinning, retries and timeouts.
 * Failures a real mgr cannot be made to produce on demand (503, a hung answer) come from this server.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CephApiError } from '../../../../lib/adapters/ceph-rbd/errors.js';
import { RestfulClient, type RestfulConnection } from '../../../../lib/adapters/ceph-rbd/restful-client.js';
import { ANSWER_FAILED_EXPIRE, ANSWER_SUCCESS } from './fixtures.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

let dir: string;
let mgrCert: { cert: string; key: string };
let otherCert: { cert: string; key: string };
let server: Server | undefined;
const servers: Server[] = [];
const clients: RestfulClient[] = [];

function makeCert(name: string, cn: string): { cert: string; key: string } {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', key, '-out', cert, '-days', '2', '-subj', `/O=IT/CN=${cn}`],
    ],
    { stdio: 'ignore' },
  );
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-fencer-restful-'));
  mgrCert = makeCert('mgr', 'ceph-restful');
  otherCert = makeCert('other', 'ceph-restful');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    if (s.listening) await new Promise((resolve) => s.close(resolve));
  }
  server = undefined;
});

type Reply = { status: number; body: string } | 'hang';

/** A mgr stand-in; `answer` gets each request in turn. */
async function serve(answer: (seen: Seen, n: number) => Reply): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer({ cert: mgrCert.cert, key: mgrCert.key }, (request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const one = {
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        body,
      };
      seen.push(one);
      const reply = answer(one, seen.length);
      if (reply === 'hang') return;
      response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/`, seen };
}

const client = (url: string, overrides: Partial<RestfulConnection> = {}): RestfulClient => {
  const c = new RestfulClient({
    urls: [url],
    keyName: 'kube-fencer',
    key: '0c3b3e4e-6f0a-4c8c-9d8e-000000000001',
    ca: mgrCert.cert,
    serverName: 'ceph-restful',
    timeoutMs: 2000,
    attempts: 3,
    backoffMs: 10,
    ...overrides,
  });
  clients.push(c);
  return c;
};

const ok = (outb = '[][]', outs = 'listed 0 entries'): Reply => ({
  status: 200,
  body: ANSWER_SUCCESS(outb, outs),
});
const posts = (seen: Seen[]) => seen.filter((s) => s.method === 'POST');
const LS = { prefix: 'osd blocklist ls', fields: { format: 'json' } };

async function failure(promise: Promise<unknown>): Promise<CephApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CephApiError);
  return error as CephApiError;
}

describe('RestfulClient', () => {
  it('runs each change in a request of its own, one after another, then the read, and returns what it printed', async () => {
    const mgr = await serve((s) =>
      s.method !== 'POST'
        ? { status: 200, body: '{}' }
        : s.body.includes('"osd blocklist ls"')
          ? ok('[][{"range":"10.77.0.2:0/32"}]', '')
          : ok('', 'blocklisting'),
    );
    const add = (addr: string) => ({
      prefix: 'osd blocklist',
      fields: { range: 'range', blocklistop: 'add', addr },
      floats: { expire: 604800 },
    });

    const read = await client(mgr.url).runThenRead([add('10.77.0.2/32'), add('10.200.0.7/32')], LS);

    expect(read.outb).toBe('[][{"range":"10.77.0.2:0/32"}]');
    // One command per request, never a list: the Pacific mgr crashed completing multi-command requests.
    expect(posts(mgr.seen).map((p) => JSON.parse(p.body))).toEqual([
      { prefix: 'osd blocklist', range: 'range', blocklistop: 'add', addr: '10.77.0.2/32', expire: 604800 },
      { prefix: 'osd blocklist', range: 'range', blocklistop: 'add', addr: '10.200.0.7/32', expire: 604800 },
      { prefix: 'osd blocklist ls', format: 'json' },
    ]);
    expect(posts(mgr.seen)[0]?.body).toContain('"expire":604800.0');
  });

  it('fails the call when one of the changes failed, and sends nothing after it', async () => {
    const answer = JSON.stringify({
      state: 'failed',
      id: '2',
      failed: [{ command: 'osd blocklist blocklistop=add addr=10.77.0.2:0/0', outb: '', outs: 'EPERM' }],
      finished: [],
    });
    const mgr = await serve((s) =>
      s.method === 'POST' ? { status: 200, body: answer } : { status: 200, body: '{}' },
    );

    const error = await failure(
      client(mgr.url).runThenRead(
        [
          { prefix: 'osd blocklist', fields: { blocklistop: 'add', addr: '10.77.0.2:0/0' } },
          { prefix: 'osd blocklist', fields: { blocklistop: 'add', addr: '10.77.0.3:0/0' } },
        ],
        LS,
      ),
    );

    expect(error).toMatchObject({ fault: 'CommandFailed', retryable: false, cephMessage: 'EPERM' });
    expect(posts(mgr.seen)).toHaveLength(1);
  });

  it('posts the command to /request?wait=1 with Basic auth, and forgets the request afterwards', async () => {
    const mgr = await serve((s) =>
      s.method === 'POST'
        ? ok('[{"addr":"10.0.0.1:0/0","until":"x"}][]', 'listed 1 entries')
        : { status: 200, body: '{}' },
    );

    const answer = await client(mgr.url).run({
      prefix: 'osd blocklist',
      fields: { range: 'range', blocklistop: 'add', addr: '10.77.0.2/32' },
      floats: { expire: 604800 },
    });

    expect(answer).toEqual({
      outb: '[{"addr":"10.0.0.1:0/0","until":"x"}][]',
      outs: 'listed 1 entries',
      attempts: 1,
    });
    const [post, forget] = mgr.seen;
    expect(post).toMatchObject({ method: 'POST', url: '/request?wait=1', contentType: 'application/json' });
    expect(post?.body).toBe(
      '{"prefix":"osd blocklist","range":"range","blocklistop":"add","addr":"10.77.0.2/32","expire":604800.0}',
    );
    const credentials = Buffer.from((post?.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
    expect(credentials).toBe('kube-fencer:0c3b3e4e-6f0a-4c8c-9d8e-000000000001');
    expect(forget).toMatchObject({ method: 'DELETE', url: '/request/139913576525584' });
  });

  it('tries each mgr in turn (only the active one serves) and goes to the one that answered first', async () => {
    const standby = await serve(() => ({ status: 503, body: 'not the active mgr' }));
    const active = await serve(() => ok());
    const c = client(standby.url, { urls: [standby.url, active.url] });

    await c.run(LS);
    await c.run(LS);

    expect(posts(standby.seen)).toHaveLength(1);
    expect(posts(active.seen)).toHaveLength(2);
  });

  it('reads a failed command from the body of an HTTP 200, and does not retry it', async () => {
    const mgr = await serve(() => ({ status: 200, body: ANSWER_FAILED_EXPIRE }));

    const error = await failure(client(mgr.url).run(LS));

    expect(error).toMatchObject({
      name: 'ProviderApiError',
      fault: 'CommandFailed',
      retryable: false,
      cephMessage: "bad or missing field 'expire'",
    });
    expect(posts(mgr.seen)).toHaveLength(1);
  });

  it('says auth refused on 401 and does not retry', async () => {
    const mgr = await serve(() => ({ status: 401, body: '{"message": "auth: Incorrect password"}' }));

    const error = await failure(client(mgr.url).run(LS));

    expect(error).toMatchObject({ fault: 'AuthRefused', retryable: false, httpStatus: 401 });
    expect(error.message).toContain('auth: Incorrect password');
    expect(error.message).not.toContain('0c3b3e4e');
    expect(posts(mgr.seen)).toHaveLength(1);
  });

  it('tries again after a 503 and succeeds', async () => {
    const mgr = await serve((_s, n) => (n === 1 ? { status: 503, body: 'busy' } : ok()));

    const answer = await client(mgr.url).run(LS);

    expect(answer.attempts).toBe(2);
    expect(posts(mgr.seen)).toHaveLength(2);
  });

  it('gives up on a mgr that does not answer in time, as unreachable and retryable', async () => {
    const mgr = await serve(() => 'hang');

    const error = await failure(client(mgr.url, { timeoutMs: 300, attempts: 2 }).run(LS));

    expect(error).toMatchObject({ fault: 'MgrUnreachable', retryable: true, attempts: 2 });
    expect(posts(mgr.seen)).toHaveLength(2);
  });

  it('says unreachable when nothing listens', async () => {
    const mgr = await serve(() => ok());
    server?.close();
    server?.closeAllConnections();

    const error = await failure(client(mgr.url).run(LS));

    expect(error).toMatchObject({ fault: 'MgrUnreachable', retryable: true, attempts: 3 });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('refuses a certificate that is not the pinned one, without retrying', async () => {
    const mgr = await serve(() => ok());

    const error = await failure(client(mgr.url, { ca: otherCert.cert }).run(LS));

    expect(error).toMatchObject({ fault: 'MgrUnreachable', retryable: false });
    expect(mgr.seen).toHaveLength(0);
  });

  it('checks the certificate’s name deliberately (CN=ceph-restful, no subjectAltName)', async () => {
    const mgr = await serve(() => ok());

    const error = await failure(client(mgr.url, { serverName: 'ceph-mgr.example' }).run(LS));

    expect(error).toMatchObject({ fault: 'MgrUnreachable', retryable: false });
    expect(error.message).toContain('ceph-mgr.example');
    expect(mgr.seen).toHaveLength(0);
  });

  it('pins the certificate’s fingerprint on top of the CA when asked', async () => {
    const mgr = await serve(() => ok());
    const right = new X509Certificate(mgrCert.cert).fingerprint256;
    const wrong = new X509Certificate(otherCert.cert).fingerprint256;

    await expect(client(mgr.url, { fingerprintSha256: right }).run(LS)).resolves.toMatchObject({
      attempts: 1,
    });
    const error = await failure(client(mgr.url, { fingerprintSha256: wrong }).run(LS));
    expect(error).toMatchObject({ fault: 'MgrUnreachable', retryable: false });
    expect(error.message).toContain('not the pinned one');
  });

  it('stops at once when the caller aborts, saying the outcome is unknown', async () => {
    const mgr = await serve(() => 'hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);

    const error = await failure(client(mgr.url, { timeoutMs: 10_000 }).run(LS, controller.signal));

    expect(error).toMatchObject({ fault: 'MgrUnreachable', retryable: true });
    // The caller's abort, not the 10 s timeout: the message says the command's fate is unknown.
    expect(error.message).toContain('may or may not have run');
    expect(posts(mgr.seen)).toHaveLength(1);
  });

  it('reads an answer that is not JSON as a failed command', async () => {
    const mgr = await serve(() => ({ status: 200, body: '<html>oops</html>' }));

    const error = await failure(client(mgr.url).run(LS));

    expect(error).toMatchObject({ fault: 'CommandFailed', retryable: false });
    expect(posts(mgr.seen)).toHaveLength(1);
  });

  it('reads an HTTP 500 (a body the mgr cannot parse) as a failed command, not retried', async () => {
    const mgr = await serve(() => ({ status: 500, body: '<h1>Internal Server Error</h1>' }));

    const error = await failure(client(mgr.url).run(LS));

    expect(error).toMatchObject({ fault: 'CommandFailed', retryable: false, httpStatus: 500 });
    expect(posts(mgr.seen)).toHaveLength(1);
  });
});
