/**
 * The API endpoint of a kubeconfig context selected by {@link selectKubeconfigContext}: TLS settings
 * from the cluster entry, credentials from the user entry (a token, a token file, a client
 * certificate, basic auth, or a credential plugin run on demand). Only node:https: the CLI starts
 * without a Kubernetes client library.
 */
import { readFileSync } from 'node:fs';
import { Agent, type AgentOptions } from 'node:https';
import { KubeconfigError } from '../../../domain/access-errors.js';
import type { ApiEndpoint, RequestAuth } from '../api/endpoint.js';
import { type ExecCredential, execCredentialSource } from './exec-credential.js';
import type { ClusterEntry, SelectedContext, UserEntry } from './kubeconfig-files.js';

const fileOf = (path: string, what: string, selected: SelectedContext): Buffer => {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new KubeconfigError(
      code === 'ENOENT' ? 'missing' : 'unreadable',
      `context "${selected.context}": cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code}`,
      { cause: error },
    );
  }
};

const pem = (
  data: string | undefined,
  path: string | undefined,
  what: string,
  selected: SelectedContext,
): Buffer | undefined =>
  data ? Buffer.from(data, 'base64') : path ? fileOf(path, what, selected) : undefined;

function tlsOf(cluster: ClusterEntry, selected: SelectedContext): AgentOptions {
  return {
    ca: pem(cluster['certificate-authority-data'], cluster['certificate-authority'], 'the CA file', selected),
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    ...(cluster['tls-server-name'] ? { servername: cluster['tls-server-name'] } : {}),
    keepAlive: true,
  };
}

function refuseUnsupported(cluster: ClusterEntry, user: UserEntry, selected: SelectedContext): void {
  if (cluster['proxy-url']) {
    throw new KubeconfigError(
      'unsupported',
      `context "${selected.context}": cluster "${selected.clusterName}" sets proxy-url, which fencer does not support; reach the API server directly`,
    );
  }
  if (user['auth-provider'] !== undefined) {
    const provider = (user['auth-provider'] as { name?: string } | null)?.name ?? 'unknown';
    throw new KubeconfigError(
      'unsupported',
      `context "${selected.context}": user "${selected.userName}" uses auth-provider "${provider}", which fencer does not support; use a credential plugin (users[].user.exec, e.g. kubelogin)`,
    );
  }
}

function staticHeaders(user: UserEntry, selected: SelectedContext): Record<string, string> {
  const token =
    user.token ??
    (user.tokenFile ? fileOf(user.tokenFile, 'the token file', selected).toString('utf8').trim() : undefined);
  if (token) return { Authorization: `Bearer ${token}` };
  if (user.username !== undefined) {
    const basic = Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64');
    return { Authorization: `Basic ${basic}` };
  }
  return {};
}

/** Builds the endpoint; reads every file the context names now, so a bad path is reported before any request. */
export function contextEndpoint(selected: SelectedContext): ApiEndpoint {
  const { cluster, user } = selected;
  refuseUnsupported(cluster, user, selected);
  const server = (cluster.server ?? '').replace(/\/+$/, '');
  const tls = tlsOf(cluster, selected);
  if (!user.exec) {
    const cert = pem(
      user['client-certificate-data'],
      user['client-certificate'],
      'the client certificate',
      selected,
    );
    const key = pem(user['client-key-data'], user['client-key'], 'the client key', selected);
    const auth: RequestAuth = {
      agent: new Agent({ ...tls, ...(cert ? { cert, key } : {}) }),
      headers: staticHeaders(user, selected),
    };
    return { server, auth: async () => auth };
  }

  const credential = execCredentialSource(user.exec, selected.userName, server);
  const plain = new Agent(tls);
  let certAgent: { readonly for: ExecCredential; readonly agent: Agent } | undefined;
  return {
    server,
    async auth() {
      const c = await credential();
      const headers: Record<string, string> = c.token ? { Authorization: `Bearer ${c.token}` } : {};
      if (!c.clientCertificateData) return { agent: plain, headers };
      // A plugin's client certificate rotates: a new one needs its own TLS agent.
      if (certAgent?.for !== c) {
        certAgent = {
          for: c,
          agent: new Agent({ ...tls, cert: c.clientCertificateData, key: c.clientKeyData }),
        };
      }
      return { agent: certAgent.agent, headers };
    },
  };
}
