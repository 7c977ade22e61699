/**
 * Credential plugins (`users[].user.exec`): `aws eks get-token`, `kubelogin`, `gke-gcloud-auth-plugin`.
 * The protocol is small (client.authentication.k8s.io v1/v1beta1): run the command with the kubeconfig's
 * arguments and environment, read an ExecCredential from its stdout, keep it until it expires. Done
 * here rather than through @kubernetes/client-node, whose import costs the CLI a second at every start.
 */
import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import * as z from 'zod';
import { CredentialsError } from '../../../domain/access-errors.js';
import type { ExecEntry } from './kubeconfig-files.js';

/** What a plugin hands back. */
export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  /** Epoch ms; undefined means "until the API server says 401". */
  readonly expiresAt?: number;
}

const credentialSchema = z.looseObject({
  kind: z.literal('ExecCredential'),
  status: z.looseObject({
    token: z.string().optional(),
    clientCertificateData: z.string().optional(),
    clientKeyData: z.string().optional(),
    expirationTimestamp: z.string().optional(),
  }),
});

/** How long before its expiry a credential is fetched again, so no request goes out with a dying one. */
const REFRESH_MARGIN_MS = 30_000;
/** A plugin that neither answers nor fails in this time is stuck (waiting for a browser login, say). */
const PLUGIN_TIMEOUT_MS = 60_000;

const lastLine = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .at(-1) ?? '';

/** The plugin as an operator knows it: the command and its subcommands, e.g. `aws eks get-token`. */
export const describePlugin = (exec: ExecEntry): string => {
  const args = exec.args ?? [];
  const firstFlag = args.findIndex((a) => a.startsWith('-'));
  const subcommands = args.slice(0, firstFlag < 0 ? args.length : firstFlag).slice(0, 3);
  return [basename(exec.command), ...subcommands].join(' ');
};

function run(exec: ExecEntry, userName: string, server: string): Promise<string> {
  const apiVersion = exec.apiVersion ?? 'client.authentication.k8s.io/v1';
  const info = {
    apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...(exec.provideClusterInfo ? { cluster: { server } } : {}) },
  };
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const { name, value } of exec.env ?? []) env[name] = value;
  const plugin = `credential plugin "${describePlugin(exec)}" of kubeconfig user "${userName}"`;
  return new Promise((resolve, reject) => {
    execFile(
      exec.command,
      exec.args ?? [],
      { env, timeout: PLUGIN_TIMEOUT_MS, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          const hint = exec.installHint ? `: ${lastLine(exec.installHint)}` : '';
          return reject(
            new CredentialsError('kubernetes', `${plugin}: ${exec.command} is not installed${hint}`, {
              cause: error,
            }),
          );
        }
        const why = error.killed
          ? `gave no answer within ${PLUGIN_TIMEOUT_MS / 1000} s`
          : lastLine(stderr) || `exited with code ${error.code}`;
        reject(new CredentialsError('kubernetes', `${plugin} failed: ${why}`, { cause: error }));
      },
    );
  });
}

function parse(stdout: string, exec: ExecEntry, userName: string): ExecCredential {
  let status: z.infer<typeof credentialSchema>['status'];
  try {
    status = credentialSchema.parse(JSON.parse(stdout)).status;
  } catch (error) {
    throw new CredentialsError(
      'kubernetes',
      `credential plugin "${describePlugin(exec)}" of kubeconfig user "${userName}" printed no ExecCredential`,
      { cause: error },
    );
  }
  if (!status.token && !status.clientCertificateData) {
    throw new CredentialsError(
      'kubernetes',
      `credential plugin "${describePlugin(exec)}" of kubeconfig user "${userName}" returned neither a token nor a client certificate`,
    );
  }
  const expiresAt = status.expirationTimestamp ? Date.parse(status.expirationTimestamp) : undefined;
  return {
    token: status.token,
    clientCertificateData: status.clientCertificateData,
    clientKeyData: status.clientKeyData,
    expiresAt: Number.isNaN(expiresAt) ? undefined : expiresAt,
  };
}

/**
 * A source of fresh credentials from one plugin: runs it on first use and again once the last
 * credential is about to expire; concurrent callers share one run.
 */
export function execCredentialSource(
  exec: ExecEntry,
  userName: string,
  server: string,
): () => Promise<ExecCredential> {
  let current: ExecCredential | undefined;
  let pending: Promise<ExecCredential> | undefined;
  return async () => {
    const fresh =
      current && (current.expiresAt === undefined || current.expiresAt - REFRESH_MARGIN_MS > Date.now());
    if (current && fresh) return current;
    pending ??= run(exec, userName, server)
      .then((stdout) => parse(stdout, exec, userName))
      .then((credential) => {
        current = credential;
        return credential;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
