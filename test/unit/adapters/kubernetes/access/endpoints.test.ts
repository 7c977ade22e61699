/** The functions' kubeconfig reader: what it takes from a kubeconfig, and what it refuses, naming why. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  kubeconfigEndpoint,
  tokenEndpoint,
} from '../../../../../lib/adapters/kubernetes/access/endpoints.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const kubeconfig = (cluster: string, user: string, extra = '') => `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: 'https://api.example:6443/', ${cluster}}}]
users: [{name: u, user: {${user}}}]
contexts: [{name: main, context: {cluster: c, user: u}}, {name: other, context: {cluster: missing, user: u}}]
current-context: main
${extra}`;
const read = (yaml: string, options: { baseDir?: string; context?: string } = {}) =>
  kubeconfigEndpoint(yaml, { source: 'test.yaml', ...options });
const tlsOf = async (endpoint: ReturnType<typeof read>) =>
  ((await endpoint.auth()).agent as Agent & { options: Record<string, unknown> }).options;

describe('kubeconfigEndpoint', () => {
  it('takes the current context: server without trailing slash, CA, bearer token', async () => {
    const endpoint = read(kubeconfig(`certificate-authority-data: ${b64('CA PEM')}`, 'token: t0k'));

    expect(endpoint.server).toBe('https://api.example:6443');
    expect((await endpoint.auth()).headers).toStrictEqual({ Authorization: 'Bearer t0k' });
    const tls = await tlsOf(endpoint);
    expect(String(tls.ca)).toBe('CA PEM');
    expect(tls.rejectUnauthorized).toBe(true);
  });

  it('reads a client certificate from data, and files relative to the kubeconfig folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
    writeFileSync(join(dir, 'ca.pem'), 'CA FILE');
    writeFileSync(join(dir, 'token'), 'from-file\n');
    const withData = read(
      kubeconfig(
        'certificate-authority: ca.pem',
        `client-certificate-data: ${b64('CERT')}, client-key-data: ${b64('KEY')}`,
      ),
      { baseDir: dir },
    );
    const tls = await tlsOf(withData);
    expect([String(tls.ca), String(tls.cert), String(tls.key)]).toEqual(['CA FILE', 'CERT', 'KEY']);
    expect((await withData.auth()).headers).toStrictEqual({});

    const withTokenFile = read(kubeconfig('insecure-skip-tls-verify: true', 'tokenFile: token'), {
      baseDir: dir,
    });
    expect((await withTokenFile.auth()).headers).toStrictEqual({ Authorization: 'Bearer from-file' });
    expect((await tlsOf(withTokenFile)).rejectUnauthorized).toBe(false);
  });

  it.each([
    ['a credential plugin', kubeconfig('', 'exec: {command: aws}'), 'plugin (exec or auth-provider)'],
    ['no credentials', kubeconfig('', ''), 'neither a token nor a client certificate'],
    [
      'no current context',
      kubeconfig('', 'token: t').replace('current-context: main', ''),
      'no current-context',
    ],
    [
      'an unknown context',
      kubeconfig('', 'token: t').replace('current-context: main', 'current-context: x'),
      'no context named "x"',
    ],
    ['garbage', 'clusters: [oops', 'not a kubeconfig'],
    ['a cluster without server', 'clusters: [{name: c, cluster: {}}]', 'not a kubeconfig'],
    [
      'a file that is not there',
      kubeconfig('certificate-authority: /nonexistent/ca.pem', 'token: t'),
      'cannot read /nonexistent/ca.pem',
    ],
  ])('refuses %s with a ValidationError naming the kubeconfig', (_, yaml, why) => {
    expect(() => read(yaml)).toThrow(
      expect.objectContaining({
        name: 'ValidationError',
        message: expect.stringContaining(`kubeconfig test.yaml: `),
      }),
    );
    expect(() => read(yaml)).toThrow(why);
  });

  it('refuses a context whose cluster is not defined', () => {
    expect(() => read(kubeconfig('', 'token: t'), { context: 'other' })).toThrow(
      'context "other" names cluster "missing", which it does not define',
    );
  });
});

describe('tokenEndpoint', () => {
  it('verifies the server against the given CA and sends the token', async () => {
    const endpoint = tokenEndpoint({
      server: 'https://eks.example',
      caData: b64('EKS CA'),
      token: 'k8s-aws-v1.x',
    });

    expect((await endpoint.auth()).headers).toStrictEqual({ Authorization: 'Bearer k8s-aws-v1.x' });
    const tls = await tlsOf(endpoint);
    expect(String(tls.ca)).toBe('EKS CA');
    expect(tls.rejectUnauthorized).toBe(true);
  });
});
