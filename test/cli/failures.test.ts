/**
 * The built `fencer`, run as an operator runs it, failing the ways an operator's machine makes it fail:
 * each failure is exactly one line on stderr with the exit code of docs/cli.md's table, and a stack
 * trace only with --debug. The cases that need an API server that answers are in access.test.ts.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, linesOf, runCli } from '../support/run-cli.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'fencer-failures-'));

/** A kubeconfig with one context, `prod`, for a server and a user entry. */
function kubeconfig(server: string, user: string): string {
  const path = join(scratch(), 'config');
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters: [{name: prod, cluster: {server: '${server}'}}]
users: [{name: oncall, user: ${user}}]
contexts: [{name: prod, context: {cluster: prod, user: oncall}}]
current-context: prod
`,
  );
  return path;
}

/** A credential plugin that fails the way `aws eks get-token` does once the SSO session has expired. */
function expiredPlugin(): string {
  const path = join(scratch(), 'aws');
  writeFileSync(
    path,
    '#!/bin/sh\necho "" >&2\necho "Error when retrieving token from sso: Token has expired and refresh failed" >&2\nexit 255\n',
  );
  chmodSync(path, 0o755);
  return path;
}

const folder = () => {
  const path = join(scratch(), 'kubeconfig.d');
  mkdirSync(path);
  return path;
};
const write = (text: string) => {
  const path = join(scratch(), 'config');
  writeFileSync(path, text);
  return path;
};

// An address nobody listens on: the API server is down or the context points elsewhere.
const NOBODY = 'https://127.0.0.1:1';

describe('every failure is one line with its exit code', () => {
  it.each<[string, () => string[], number, RegExp]>([
    [
      'an invalid region',
      () => ['fence', 'node-a', '--cluster', 'prod', '--region', 'not-a-region'],
      2,
      /^fencer: --region not-a-region: not an AWS region name \(like eu-west-1\)/,
    ],
    [
      'an invalid account id',
      () => ['fence', 'node-a', '--region', 'eu-west-1', '--account-id', 'abc'],
      2,
      /^fencer: --account-id abc: an AWS account id is 12 digits/,
    ],
    [
      'a duration it cannot read',
      () => ['fence', 'node-a', '--timeout', '5 minutes'],
      2,
      /^fencer: --timeout 5 minutes: must be a duration like 90s, 5m or 1h30m/,
    ],
    [
      'an unknown command',
      () => ['fense', 'node-a'],
      2,
      /^fencer: unknown command 'fense' \(Did you mean fence\?\)/,
    ],
    [
      'a missing --cluster',
      () => ['fence', 'node-a', '--region', 'eu-west-1'],
      2,
      /^fencer: --cluster is required/,
    ],
    [
      'a --kubeconfig that does not exist',
      () => ['status', '--kubeconfig', '/nonexistent/config'],
      6,
      /^fencer: kubeconfig \/nonexistent\/config does not exist$/,
    ],
    [
      'no kubeconfig at all',
      () => ['status'],
      6,
      /^fencer: no kubeconfig: \S+\/\.kube\/config does not exist \(pass --kubeconfig FILE or set KUBECONFIG\)$/,
    ],
    [
      'a kubeconfig that cannot be read',
      () => ['status', '--kubeconfig', folder()],
      6,
      /^fencer: cannot read kubeconfig \S+: it is a folder$/,
    ],
    [
      'a kubeconfig that is not YAML',
      () => ['status', '--kubeconfig', write('clusters: [\n  - a\n  b: [\n')],
      6,
      /^fencer: kubeconfig \S+ is not valid YAML at line \d+: /,
    ],
    [
      'a kubeconfig that is not a kubeconfig',
      () => ['status', '--kubeconfig', write('contexts: {prod: yes}\n')],
      6,
      /^fencer: kubeconfig \S+ is not a kubeconfig: contexts: /,
    ],
    [
      'an unknown --context',
      () => ['status', '--kubeconfig', kubeconfig(NOBODY, '{token: t}'), '--context', 'staging'],
      6,
      /^fencer: context "staging" is not in kubeconfig \S+ \(contexts: prod\)$/,
    ],
    [
      'an API server that does not answer',
      () => ['status', '--kubeconfig', kubeconfig(NOBODY, '{token: t}')],
      8,
      /^fencer: cannot reach the Kubernetes API server https:\/\/127\.0\.0\.1:1 \(context "prod"\): connection refused$/,
    ],
    [
      'a credential plugin whose login expired',
      () => [
        'status',
        '--kubeconfig',
        kubeconfig(
          NOBODY,
          `{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ${expiredPlugin()}, args: [eks, get-token, --cluster-name, prod]}}`,
        ),
      ],
      7,
      /^fencer: credential plugin "aws eks get-token" of kubeconfig user "oncall" failed: Error when retrieving token from sso: Token has expired and refresh failed$/,
    ],
  ])('%s', async (_, args, code, line) => {
    const result = await runCli(args());

    expect(linesOf(result.stderr), result.stderr).toHaveLength(1);
    expect(result.stderr.trimEnd()).toMatch(line);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(code);
  });

  it('says at once that Alibaba Cloud credentials are missing when ALIBABA_CLOUD_REGION asks for ECS', async () => {
    const env = isolatedEnv({ ALIBABA_CLOUD_REGION: 'cn-hangzhou' });
    const args = ['fence', 'node-a', '--cluster', 'prod', '--kubeconfig', '/nonexistent'];
    const missing = await runCli(args, { env });
    const half = await runCli(args, { env: { ...env, ALIBABA_CLOUD_ACCESS_KEY_ID: 'LTAI5tExample' } });

    expect(linesOf(missing.stderr)).toStrictEqual([
      'fencer: ALIBABA_CLOUD_REGION is set but there are no Alibaba Cloud credentials: set ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET (and ALIBABA_CLOUD_SECURITY_TOKEN for STS)',
    ]);
    expect(missing.code).toBe(7);
    expect(half.stderr).toMatch(/^fencer: .*ALIBABA_CLOUD_ACCESS_KEY_SECRET is not set\n$/);
    expect(half.code).toBe(7);
  });

  it('checks input before reading the kubeconfig: a bad region wins over a missing kubeconfig', async () => {
    const result = await runCli([
      'fence',
      'node-a',
      '--kubeconfig',
      '/nonexistent',
      '--region',
      'eu-west-one',
    ]);
    expect(result.code).toBe(2);
  });

  it('prints the stack trace only with --debug, after the same line', async () => {
    const args = ['status', '--kubeconfig', kubeconfig(NOBODY, '{token: t}')];
    const plain = await runCli(args);
    const debug = await runCli([...args, '--debug']);

    expect(linesOf(plain.stderr)).toHaveLength(1);
    const [first, ...stack] = linesOf(debug.stderr);
    expect(first).toBe(linesOf(plain.stderr)[0]);
    expect(stack[0]).toMatch(/^UnreachableError: cannot reach/);
    expect(stack.some((l) => /^\s+at /.test(l))).toBe(true);
    expect(debug.stderr).toContain('caused by: Error: connect ECONNREFUSED 127.0.0.1:1');
    expect(debug.code).toBe(8);
  });
});

describe('kubectl conventions', () => {
  it('takes global flags before or after the subcommand', async () => {
    const config = kubeconfig(NOBODY, '{token: t}');
    const before = await runCli(['-o', 'json', '--kubeconfig', config, '--context', 'prod', 'status']);
    const after = await runCli(['status', '-o', 'yaml', '--context', 'prod', '--kubeconfig', config]);

    for (const result of [before, after]) {
      expect(result.stderr).toMatch(
        /^fencer: cannot reach the Kubernetes API server https:\/\/127\.0\.0\.1:1 \(context "prod"\)/,
      );
      expect(result.code).toBe(8);
    }
  });

  it('reads KUBECONFIG as a list, as kubectl does', async () => {
    const config = kubeconfig(NOBODY, '{token: t}');
    const result = await runCli(['status'], {
      env: isolatedEnv({ KUBECONFIG: ['/nonexistent/first', config].join(':') }),
    });
    expect(result.stderr).toMatch(/context "prod"/);
    expect(result.code).toBe(8);
  });
});
