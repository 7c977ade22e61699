/**
 * Credential plugins, run for real: small shell scripts that speak the ExecCredential protocol the
 * way `aws eks get-token` and kubelogin do, and fail the way they fail.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describePlugin,
  execCredentialSource,
} from '../../../../../lib/adapters/kubernetes/access/exec-credential.js';
import type { ExecEntry } from '../../../../../lib/adapters/kubernetes/access/kubeconfig-files.js';

/** A plugin script that counts its runs in `count` and prints `body` (a shell snippet). */
function plugin(body: string): { exec: ExecEntry; runs: () => number; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'exec-plugin-'));
  const script = join(dir, 'plugin.sh');
  writeFileSync(script, `#!/bin/sh\necho run >> "${dir}/count"\n${body}\n`);
  chmodSync(script, 0o755);
  const runs = () => {
    try {
      return readFileSync(join(dir, 'count'), 'utf8').trim().split('\n').length;
    } catch {
      return 0;
    }
  };
  return { exec: { command: script, apiVersion: 'client.authentication.k8s.io/v1' }, runs, dir };
}

const credential = (status: string) =>
  `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":${status}}'`;

describe('execCredentialSource', () => {
  it('runs the plugin once and keeps its token until it is about to expire', async () => {
    const far = new Date(Date.now() + 3600_000).toISOString();
    const { exec, runs } = plugin(credential(`{"token":"t-1","expirationTimestamp":"${far}"}`));
    const source = execCredentialSource(exec, 'eks-user', 'https://api.example');

    const [a, b] = await Promise.all([source(), source()]);
    const c = await source();

    expect([a.token, b.token, c.token]).toEqual(['t-1', 't-1', 't-1']);
    expect(runs()).toBe(1);
  });

  it('runs the plugin again once the credential has expired', async () => {
    const past = new Date(Date.now() - 1000).toISOString();
    const { exec, runs } = plugin(credential(`{"token":"short","expirationTimestamp":"${past}"}`));
    const source = execCredentialSource(exec, 'u', 'https://api.example');

    await source();
    await source();

    expect(runs()).toBe(2);
  });

  it("passes the kubeconfig's environment and KUBERNETES_EXEC_INFO, with the server when asked", async () => {
    const { exec, dir } = plugin(
      `echo "$AWS_PROFILE $KUBERNETES_EXEC_INFO" > "$OUT"\n${credential('{"token":"t"}')}`,
    );
    const out = join(dir, 'out');
    const source = execCredentialSource(
      {
        ...exec,
        env: [
          { name: 'AWS_PROFILE', value: 'oncall' },
          { name: 'OUT', value: out },
        ],
        provideClusterInfo: true,
      },
      'u',
      'https://api.example',
    );

    await source();

    const [profile, ...info] = readFileSync(out, 'utf8').trim().split(' ');
    expect(profile).toBe('oncall');
    expect(JSON.parse(info.join(' '))).toMatchObject({
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: 'https://api.example' } },
    });
  });

  it('returns a client certificate when the plugin gives one', async () => {
    const { exec } = plugin(credential('{"clientCertificateData":"CERT","clientKeyData":"KEY"}'));
    const c = await execCredentialSource(exec, 'u', 'https://api.example')();
    expect(c).toMatchObject({ clientCertificateData: 'CERT', clientKeyData: 'KEY', token: undefined });
  });

  it.each([
    [
      'fails, with its last stderr line',
      'echo "looking up profile" >&2; echo "Error: the SSO session has expired; run aws sso login" >&2; exit 255',
      'failed: Error: the SSO session has expired; run aws sso login',
    ],
    ['prints no ExecCredential', 'echo not-json', 'printed no ExecCredential'],
    [
      'returns neither a token nor a certificate',
      credential('{}'),
      'returned neither a token nor a client certificate',
    ],
  ])('raises a CredentialsError when the plugin %s', async (_, body, message) => {
    const { exec } = plugin(body);
    await expect(execCredentialSource(exec, 'eks-user', 'https://api.example')()).rejects.toMatchObject({
      name: 'CredentialsError',
      service: 'kubernetes',
      message: expect.stringContaining(message),
    });
  });

  it('names a plugin that is not installed, with its install hint', async () => {
    const exec: ExecEntry = {
      command: 'kubectl-oidc_login-not-installed',
      args: ['get-token'],
      installHint: 'install it with:\n  kubectl krew install oidc-login',
    };
    await expect(execCredentialSource(exec, 'oidc', 'https://api.example')()).rejects.toMatchObject({
      name: 'CredentialsError',
      message:
        'credential plugin "kubectl-oidc_login-not-installed get-token" of kubeconfig user "oidc": kubectl-oidc_login-not-installed is not installed: kubectl krew install oidc-login',
    });
  });
});

describe('describePlugin', () => {
  it('names the command and its subcommands, not its flags', () => {
    expect(
      describePlugin({ command: '/usr/local/bin/aws', args: ['eks', 'get-token', '--cluster-name', 'prod'] }),
    ).toBe('aws eks get-token');
    expect(describePlugin({ command: 'sh', args: ['-c', 'echo long script'] })).toBe('sh');
  });
});
