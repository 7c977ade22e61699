/** The endpoint of a selected context: TLS from the cluster, credentials from the user, and what is refused. */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contextEndpoint } from '../../../../../lib/adapters/kubernetes/access/context-endpoint.js';
import type {
  ClusterEntry,
  SelectedContext,
  UserEntry,
} from '../../../../../lib/adapters/kubernetes/access/kubeconfig-files.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const selected = (cluster: ClusterEntry, user: UserEntry): SelectedContext => ({
  files: ['/home/oncall/.kube/config'],
  context: 'prod',
  namespace: 'default',
  clusterName: 'prod-cluster',
  cluster: { server: 'https://api.prod:6443/', ...cluster },
  userName: 'oncall',
  user,
});
const tlsOf = async (endpoint: ReturnType<typeof contextEndpoint>) =>
  ((await endpoint.auth()).agent as Agent & { options: Record<string, unknown> }).options;

describe('contextEndpoint', () => {
  it('sends a token, verifies the server against the CA, drops the trailing slash', async () => {
    const endpoint = contextEndpoint(selected({ 'certificate-authority-data': b64('CA') }, { token: 't0k' }));

    expect(endpoint.server).toBe('https://api.prod:6443');
    expect((await endpoint.auth()).headers).toStrictEqual({ Authorization: 'Bearer t0k' });
    const tls = await tlsOf(endpoint);
    expect([String(tls.ca), tls.rejectUnauthorized]).toEqual(['CA', true]);
  });

  it('reads a token file and a client certificate from files, and basic auth', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctx-endpoint-'));
    writeFileSync(join(dir, 'token'), 'from-file\n');
    writeFileSync(join(dir, 'cert.pem'), 'CERT');
    writeFileSync(join(dir, 'key.pem'), 'KEY');

    const fromFile = contextEndpoint(selected({}, { tokenFile: join(dir, 'token') }));
    const cert = contextEndpoint(
      selected(
        { 'insecure-skip-tls-verify': true },
        {
          'client-certificate': join(dir, 'cert.pem'),
          'client-key': join(dir, 'key.pem'),
        },
      ),
    );
    const basic = contextEndpoint(selected({}, { username: 'admin', password: 'pw' }));

    expect((await fromFile.auth()).headers).toStrictEqual({ Authorization: 'Bearer from-file' });
    const tls = await tlsOf(cert);
    expect([String(tls.cert), String(tls.key), tls.rejectUnauthorized]).toEqual(['CERT', 'KEY', false]);
    expect((await basic.auth()).headers).toStrictEqual({ Authorization: `Basic ${b64('admin:pw')}` });
  });

  it('runs a credential plugin for the token, on the first request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctx-endpoint-'));
    const script = join(dir, 'get-token');
    writeFileSync(
      script,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}'\n`,
    );
    chmodSync(script, 0o755);

    const endpoint = contextEndpoint(selected({}, { exec: { command: script } }));

    expect((await endpoint.auth()).headers).toStrictEqual({ Authorization: 'Bearer from-plugin' });
  });

  it.each([
    ['an auth-provider', {}, { 'auth-provider': { name: 'gcp' } }, 'unsupported', 'uses auth-provider "gcp"'],
    ['a proxy-url', { 'proxy-url': 'http://proxy:3128' }, { token: 't' }, 'unsupported', 'sets proxy-url'],
    [
      'a CA file that is not there',
      { 'certificate-authority': '/nonexistent/ca.pem' },
      { token: 't' },
      'missing',
      'cannot read the CA file /nonexistent/ca.pem',
    ],
  ])('refuses %s with a KubeconfigError before any request', (_, cluster, user, problem, message) => {
    expect(() => contextEndpoint(selected(cluster, user as UserEntry))).toThrow(
      expect.objectContaining({
        name: 'KubeconfigError',
        problem,
        message: expect.stringContaining(message),
      }),
    );
  });
});
