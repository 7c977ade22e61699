import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabStartError } from './build/errors.js';

/** Certificates and the bearer token of one lab run. */
export interface LabPki {
  readonly dir: string;
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly saPublicKey: string;
  readonly saPrivateKey: string;
  readonly tokenFile: string;
  /** Token of `lab-admin` (group system:masters), shared by every lab component. */
  readonly adminToken: string;
  /** Token of user `kube-fencer`, which has only what deploy/rbac.yaml grants. */
  readonly fencerToken: string;
  /** Tokens of the extra identities asked for, by user name. */
  readonly identityTokens: ReadonlyMap<string, string>;
}

/**
 * An extra identity of the lab's API server: a user in the given groups, authenticated by a static
 * token, e.g. the identity an EKS access entry gives a Lambda role (its Kubernetes groups).
 */
export interface LabIdentity {
  readonly user: string;
  readonly groups: readonly string[];
}

/** Makes a throwaway CA, a loopback serving certificate and a static admin token (openssl). */
export function makePki(dir: string, identities: readonly LabIdentity[] = []): LabPki {
  mkdirSync(dir, { recursive: true });
  const run = (args: string[]): void => {
    try {
      execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      throw new LabStartError(
        `lab: openssl ${args[0]} failed while making certificates (${(err as Error).message.split('\n')[0]})`,
      );
    }
  };
  const days = '30';
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    days,
    '-subj',
    '/CN=kube-fencer-lab-ca',
  ]);
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'apiserver.key',
    '-out',
    'apiserver.csr',
    '-subj',
    '/CN=kube-apiserver',
  ]);
  writeFileSync(
    join(dir, 'ext.cnf'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n',
  );
  run([
    'x509',
    '-req',
    '-in',
    'apiserver.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'apiserver.crt',
    '-days',
    days,
    '-extfile',
    'ext.cnf',
  ]);
  run(['genrsa', '-out', 'sa.key', '2048']);
  run(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
  const adminToken = randomBytes(32).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  const fencerToken = randomBytes(32).toString('hex');
  const identityTokens = new Map(identities.map((i) => [i.user, randomBytes(32).toString('hex')]));
  // Token file lines: token,user,uid,"group1,group2".
  const extra = identities.map(
    (i) => `${identityTokens.get(i.user)},${i.user},${i.user}-uid,"${i.groups.join(',')}"\n`,
  );
  writeFileSync(
    tokenFile,
    `${adminToken},lab-admin,lab-admin-uid,system:masters\n${fencerToken},kube-fencer,kube-fencer-uid\n${extra.join('')}`,
    { mode: 0o600 },
  );
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    serverCert: join(dir, 'apiserver.crt'),
    serverKey: join(dir, 'apiserver.key'),
    saPublicKey: join(dir, 'sa.pub'),
    saPrivateKey: join(dir, 'sa.key'),
    tokenFile,
    adminToken,
    fencerToken,
    identityTokens,
  };
}

/** A kubeconfig file for the lab's admin user. */
export function kubeconfigYaml(server: string, caCert: string, token: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: lab, cluster: {server: "${server}", certificate-authority: "${caCert}"}}]`,
    `users: [{name: lab-admin, user: {token: "${token}"}}]`,
    'contexts: [{name: lab, context: {cluster: lab, user: lab-admin, namespace: default}}]',
    'current-context: lab',
    '',
  ].join('\n');
}
