/**
 * The built `fencer` against a real lab, failing the ways a cluster and a cloud make it fail (RBAC
 * that denies, a token the API server rejects, no AWS credentials, an expired AWS SSO login, EC2 that
 * refuses the stop), each as one line with its exit code and nothing changed; then working: as a
 * kubectl plugin, with completion of node names through the lab's kubectl, and a real fence whose
 * requests (from the audit log) are all covered by the permissions the CLI checks up front.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binDir } from '../../lab/build/go-binaries.js';
import { describeInstanceState } from '../../lab/ec2-emulator.js';
import type { AuditEvent, Lab } from '../../lab/lab.js';
import {
  DIAGNOSE_PERMISSIONS,
  fencePermissions,
  STATUS_TIMELINE_PERMISSIONS,
  SWEEP_PERMISSIONS,
} from '../../lib/adapters/kubernetes/permissions.js';
import type { Permission } from '../../lib/domain/access-errors.js';
import { renderInBrowser } from '../support/browser.js';
import { labWithCutNode } from '../support/cut-node.js';
import { taintsOf } from '../support/lab-waits.js';
import { FENCER, isolatedEnv, linesOf, runCli } from '../support/run-cli.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';
const scratch = () => mkdtempSync(join(tmpdir(), 'fencer-access-'));

let lab: Lab;
/** The environment of an operator with the lab's EC2 and cluster settings, and `extra`. */
const operatorEnv = (extra: Readonly<Record<string, string>> = {}) =>
  isolatedEnv({ ...lab.fencerEnv, ...extra });
const fencerConfig = () => load(readFileSync(lab.fencerKubeconfigPath, 'utf8')) as Record<string, unknown>;

/** The fencer's kubeconfig with another user token. */
function kubeconfigWithToken(token: string): string {
  const config = fencerConfig() as { users: { user: Record<string, unknown> }[] };
  for (const u of config.users) u.user = { token };
  const path = join(scratch(), 'config');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

/** A service account bound to the triggers' read-only role: what someone with the wrong RBAC has. */
async function readOnlyToken(): Promise<string> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const rbac = lab.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({
    namespace: 'kube-system',
    body: { metadata: { name: 'oncall-viewer' } },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'oncall-viewer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kube-fencer-trigger' },
      subjects: [{ kind: 'ServiceAccount', name: 'oncall-viewer', namespace: 'kube-system' }],
    },
  });
  const review = await core.createNamespacedServiceAccountToken({
    name: 'oncall-viewer',
    namespace: 'kube-system',
    body: { spec: { expirationSeconds: 3600 } },
  });
  return review.status?.token ?? '';
}

/** An AWS SSO login whose cached token has expired, as `aws sso login` leaves it a day later. */
function expiredSsoHome(): string {
  const home = scratch();
  mkdirSync(join(home, '.aws', 'sso', 'cache'), { recursive: true });
  writeFileSync(
    join(home, '.aws', 'config'),
    `[profile oncall]
sso_session = corp
sso_account_id = 123456789012
sso_role_name = Fencer
region = us-east-1

[sso-session corp]
sso_start_url = https://corp.awsapps.example/start
sso_region = us-east-1
`,
  );
  // The SDK keys the cache by the SHA-1 of the session name.
  const key = execFileSync('sh', ['-c', "printf corp | sha1sum | cut -d' ' -f1"], {
    encoding: 'utf8',
  }).trim();
  writeFileSync(
    join(home, '.aws', 'sso', 'cache', `${key}.json`),
    JSON.stringify({
      accessToken: 'expired',
      expiresAt: '2020-01-01T00:00:00Z',
      region: 'us-east-1',
      startUrl: 'https://corp.awsapps.example/start',
    }),
  );
  return home;
}

/**
 * EC2 in front of the lab's emulator that denies StopInstances as IAM would for a role without
 * ec2:StopInstances. The emulator cannot be told to deny one call to one caller; this forwards every
 * other call to it unchanged.
 */
async function ec2DenyingStop(upstream: string): Promise<{ endpoint: string; server: Server }> {
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.toString().includes('Action=StopInstances')) {
        res.writeHead(403, { 'Content-Type': 'text/xml' });
        res.end(
          '<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>UnauthorizedOperation</Code><Message>You are not authorized to perform this operation.</Message></Error></Errors><RequestID>denied</RequestID></Response>',
        );
        return;
      }
      const forward = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { endpoint: `http://127.0.0.1:${port}`, server };
}

/** node-a untouched: no taint, instance still running. */
async function expectNothingChanged(): Promise<void> {
  expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
  expect(await describeInstanceState(lab.ec2.client, lab.node('node-a').instanceId)).toBe('running');
}

const expectOneLine = (result: { code: number | null; stderr: string }, code: number, line: RegExp) => {
  expect(linesOf(result.stderr), result.stderr).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(line);
  expect(result.code).toBe(code);
};

const fence = ['fence', 'node-a', '--lease-grace', '40'];

beforeAll(async () => {
  ({ lab } = await labWithCutNode());
});
afterAll(async () => {
  await lab?.stop();
});

describe('failures against a real cluster and cloud: one line, its exit code, nothing changed', () => {
  it('RBAC that denies: names the user, every missing permission and deploy/rbac.yaml (exit 9)', async () => {
    const config = kubeconfigWithToken(await readOnlyToken());
    const result = await runCli([...fence, '--kubeconfig', config], { env: operatorEnv() });

    expectOneLine(
      result,
      9,
      /^fencer: RBAC denied: user "system:serviceaccount:kube-system:oncall-viewer" \(context "\S+"\) may not watch nodes, .*; the fencer needs deploy\/rbac\.yaml/,
    );
    for (const missing of [
      'patch nodes',
      'delete pods',
      'get leases.coordination.k8s.io -n kube-node-lease',
    ]) {
      expect(result.stderr).toContain(`, ${missing},`);
    }
    // What the role does grant is not named.
    expect(result.stderr).not.toMatch(/[ ,]list nodes/);
    await expectNothingChanged();
  });

  it('a token the API server rejects (exit 7)', async () => {
    const result = await runCli([...fence, '--kubeconfig', kubeconfigWithToken('expired-or-revoked')], {
      env: operatorEnv(),
    });
    expectOneLine(
      result,
      7,
      /^fencer: the Kubernetes API server https:\/\/127\.0\.0\.1:\d+ \(context "\S+"\) rejected the credentials of user "\S+" \(HTTP 401\): expired or invalid; renew them and retry$/,
    );
  });

  it('no AWS credentials at all (exit 7)', async () => {
    const env = operatorEnv();
    delete env.AWS_ACCESS_KEY_ID;
    delete env.AWS_SECRET_ACCESS_KEY;
    const result = await runCli([...fence, '--kubeconfig', lab.fencerKubeconfigPath], { env });

    expectOneLine(
      result,
      7,
      /^fencer: no AWS credentials found \(.*\): run aws configure or aws sso login, or set AWS_PROFILE$/,
    );
    await expectNothingChanged();
  });

  it('an AWS SSO login that has expired (exit 7)', async () => {
    const env: NodeJS.ProcessEnv = { ...operatorEnv({ AWS_PROFILE: 'oncall' }), HOME: expiredSsoHome() };
    delete env.AWS_ACCESS_KEY_ID;
    delete env.AWS_SECRET_ACCESS_KEY;
    const result = await runCli([...fence, '--kubeconfig', lab.fencerKubeconfigPath], { env });

    expectOneLine(
      result,
      7,
      /^fencer: the AWS SSO session of profile "oncall" has expired or is missing: run aws sso login --profile oncall$/,
    );
    await expectNothingChanged();
  });

  it('EC2 refusing the stop (IAM): the provider error, at once, not a retry until the deadline (exit 10)', async () => {
    const { endpoint, server } = await ec2DenyingStop(lab.ec2.endpoint);
    try {
      const result = await runCli([...fence, '--kubeconfig', lab.fencerKubeconfigPath, '-o', 'json'], {
        env: operatorEnv({ AWS_ENDPOINT_URL_EC2: endpoint }),
      });
      expectOneLine(
        result,
        10,
        /^fencer: EC2 StopInstances for i-\w+ failed: UnauthorizedOperation: You are not authorized to perform this operation\.$/,
      );
    } finally {
      server.close();
    }
    await expectNothingChanged();
    // The run that ended gave back its claim: the next fence is not held up until the claim expires.
    const limits = await runCli(['limits', '-o', 'json', '--kubeconfig', lab.fencerKubeconfigPath], {
      env: operatorEnv(),
    });
    expect(JSON.parse(limits.stdout)).toMatchObject({ claims: [] });
  });
});

describe('working, as an operator uses it', () => {
  const kubectlDir = () => binDir();
  const pathWith = (...dirs: string[]) =>
    [...dirs, dirname(process.execPath), process.env.PATH].join(delimiter);

  it('runs as a kubectl plugin: kubectl fencer --help, kubectl fencer status', async () => {
    const plugins = scratch();
    // What `npm install -g` puts on PATH: the kubectl-fencer executable.
    execFileSync('ln', ['-s', join(dirname(FENCER), 'kubectl-fencer'), join(plugins, 'kubectl-fencer')]);
    const env = operatorEnv({ PATH: pathWith(kubectlDir(), plugins) });

    const help = await runCli(['fencer', '--help'], { command: [join(kubectlDir(), 'kubectl')], env });
    const status = await runCli(['fencer', 'status', 'node-a', '--kubeconfig', lab.fencerKubeconfigPath], {
      command: [join(kubectlDir(), 'kubectl')],
      env,
    });

    expect(help.stdout).toMatch(/^Usage: kubectl fencer \[options\] \[command\]/);
    expect(help.code).toBe(0);
    expect(status.stdout).toMatch(/^NODE\s+READY/);
    // A cut node's kubelet is silent: the node lifecycle controller marks it Unknown.
    expect(status.stdout).toMatch(/^node-a\s+(False|Unknown)\s/m);
    expect(status.code).toBe(0);
  });

  it('completes node names through kubectl', () => {
    const script = `source <("${process.execPath}" "${FENCER}" completion bash)
COMP_WORDS=(fencer fence ''); COMP_CWORD=2; _fencer; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const out = execFileSync('bash', ['-c', script], {
      encoding: 'utf8',
      env: { PATH: pathWith(kubectlDir()), KUBECONFIG: lab.fencerKubeconfigPath, HOME: scratch() },
    });
    expect(out.split('\n').filter(Boolean)).toEqual(['node-a', 'node-b']);
  });

  it('keeps -o json one JSON document with --log-json: the log lines go to stderr', async () => {
    const result = await runCli(
      [...fence, '--dry-run', '--log-json', '-o', 'json', '--kubeconfig', lab.fencerKubeconfigPath],
      { env: operatorEnv() },
    );

    expect(JSON.parse(result.stdout)).toMatchObject({ node: 'node-a' });
    const logs = linesOf(result.stderr).map((l) => JSON.parse(l) as { level: string; service: string });
    expect(logs.filter((l) => l.level === 'INFO').length).toBeGreaterThan(0);
    expect(new Set(logs.map((l) => l.service))).toEqual(new Set(['kube-fencer']));
    await expectNothingChanged();
  });

  it('prints status as YAML with -o yaml before the subcommand', async () => {
    const result = await runCli(
      ['-o', 'yaml', 'status', 'node-a', '--kubeconfig', lab.fencerKubeconfigPath],
      {
        env: operatorEnv(),
      },
    );
    expect(load(result.stdout)).toEqual([
      expect.objectContaining({ node: 'node-a', ready: expect.stringMatching(/^(False|Unknown)$/) }),
    ]);
  });
});

describe('a real fence, its picture, and the permissions it used', () => {
  const pictures = scratch();
  let since: number;

  beforeAll(() => {
    since = lab.fencerRequests().length;
  });

  it('fences node-a and writes the picture of the run', async () => {
    const result = await runCli(
      [
        ...fence,
        '--timeline-out',
        join(pictures, 'fence.html'),
        '--timeout',
        '3m',
        '--kubeconfig',
        lab.fencerKubeconfigPath,
      ],
      { env: operatorEnv() },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readFileSync(join(pictures, 'fence.html'), 'utf8')).toContain('proof of off: i-');
  });

  it('draws what the cluster remembers with status NODE --timeline-out', async () => {
    const result = await runCli(
      [
        'status',
        'node-a',
        '--timeline-out',
        join(pictures, 'status.svg'),
        '--kubeconfig',
        lab.fencerKubeconfigPath,
      ],
      { env: operatorEnv() },
    );
    expect(result.code).toBe(0);
    expect(readFileSync(join(pictures, 'status.svg'), 'utf8')).toContain('fence record: i-');
  });

  it.each(['fence.html', 'status.svg'])('%s renders in a real browser with every lane', async (file) => {
    const rendered = await renderInBrowser(join(pictures, file));
    expect(rendered.screenshotBytes).toBeGreaterThan(20_000);
    expect(rendered.distinctColours).toBeGreaterThan(4);
    expect(rendered.laneLabels).toEqual([
      'Node node-a',
      `Instance ${lab.node('node-a').instanceId}`,
      'Pods',
      'VolumeAttachments',
      'Disks',
    ]);
    expect(rendered.steps).toBeGreaterThan(0);
  });

  it('made no request the permissions checked up front do not cover', async () => {
    await runCli(['diagnose', 'pod', 'db-0', '--kubeconfig', lab.fencerKubeconfigPath], {
      env: operatorEnv(),
    });
    await runCli(['sweep', '--kubeconfig', lab.fencerKubeconfigPath], { env: operatorEnv() });
    const checked = [
      ...fencePermissions({ accelerate: true, deletesVolumeAttachments: false }),
      ...STATUS_TIMELINE_PERMISSIONS,
      ...DIAGNOSE_PERMISSIONS,
      ...SWEEP_PERMISSIONS,
    ];
    const covers = (e: AuditEvent) => (p: Permission) => {
      const ref = e.objectRef as { resource?: string; namespace?: string; name?: string; apiGroup?: string };
      return (
        p.verb === e.verb &&
        p.resource === ref.resource &&
        p.group === (ref.apiGroup ?? '') &&
        (p.namespace === undefined || p.namespace === ref.namespace) &&
        (p.name === undefined || p.name === ref.name)
      );
    };
    const uncovered = lab
      .fencerRequests()
      .slice(since)
      .filter((e) => e.objectRef?.resource)
      .filter((e) => !checked.some(covers(e)))
      .map(
        (e) =>
          `${e.verb} ${e.objectRef?.resource} ${e.objectRef?.namespace ?? ''}/${e.objectRef?.name ?? ''}`,
      );
    expect([...new Set(uncovered)]).toEqual([]);
  });
});
