/**
 * API endpoints for the functions: a bearer token (EKS), or a kubeconfig's current context with a
 * token or a client certificate (a secret, a file). Only node:https and a YAML parser: no client
 * library in the Lambda bundles. Credential plugins (`exec`, `auth-provider`) cannot run in a Lambda
 * and are refused with a clear error; the CLI runs `exec` plugins (context-endpoint.ts, exec-credential.ts).
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { isAbsolute, join } from 'node:path';
import { load } from 'js-yaml';
import * as z from 'zod';
import { ValidationError } from '../../../domain/errors.js';
import type { ApiEndpoint } from '../api/endpoint.js';

/** TLS material of one connection, as PEM (strings or buffers). */
interface Tls {
  readonly ca?: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  readonly rejectUnauthorized: boolean;
  readonly servername?: string;
}

const endpoint = (server: string, tls: Tls, headers: Readonly<Record<string, string>>): ApiEndpoint => {
  const agent = new Agent({ ...tls, keepAlive: true });
  const auth = { agent, headers };
  return { server: server.replace(/\/+$/, ''), auth: async () => auth };
};

/** The server, its CA (base64 PEM, as EKS and kubeconfigs give it) and a bearer token. */
export function tokenEndpoint(options: {
  readonly server: string;
  readonly caData: string;
  readonly token: string;
}): ApiEndpoint {
  return endpoint(
    options.server,
    { ca: Buffer.from(options.caData, 'base64'), rejectUnauthorized: true },
    { Authorization: `Bearer ${options.token}` },
  );
}

const clusterSchema = z.object({
  server: z.string().min(1),
  'certificate-authority-data': z.string().optional(),
  'certificate-authority': z.string().optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
  'tls-server-name': z.string().optional(),
});
const userSchema = z.object({
  token: z.string().optional(),
  tokenFile: z.string().optional(),
  'client-certificate-data': z.string().optional(),
  'client-key-data': z.string().optional(),
  'client-certificate': z.string().optional(),
  'client-key': z.string().optional(),
  exec: z.unknown().optional(),
  'auth-provider': z.unknown().optional(),
});
const contextSchema = z.object({ cluster: z.string(), user: z.string().optional() });

/** The fields of a kubeconfig this reader uses; others are ignored. */
const kubeconfigSchema = z.object({
  'current-context': z.string().optional(),
  clusters: z.array(z.object({ name: z.string(), cluster: clusterSchema })).default([]),
  users: z.array(z.object({ name: z.string(), user: userSchema.default({}) })).default([]),
  contexts: z.array(z.object({ name: z.string(), context: contextSchema })).default([]),
});

/**
 * The endpoint of a kubeconfig's current context (or `context`). Relative file paths in it are
 * resolved against `baseDir`, as kubectl resolves them against the file's folder. `source` names
 * the kubeconfig in errors (a secret's ARN, a path).
 */
export function kubeconfigEndpoint(
  yaml: string,
  options: { readonly source: string; readonly baseDir?: string; readonly context?: string },
): ApiEndpoint {
  const invalid = (why: string) => new ValidationError(`kubeconfig ${options.source}: ${why}`);
  let parsed: z.infer<typeof kubeconfigSchema>;
  try {
    parsed = kubeconfigSchema.parse(load(yaml));
  } catch (error) {
    const detail = error instanceof z.ZodError ? z.prettifyError(error) : (error as Error).message;
    throw invalid(`not a kubeconfig: ${detail}`);
  }
  const contextName = options.context ?? parsed['current-context'];
  if (!contextName) throw invalid('no current-context');
  const context = parsed.contexts.find((c) => c.name === contextName)?.context;
  if (!context) throw invalid(`no context named "${contextName}"`);
  const cluster = parsed.clusters.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster)
    throw invalid(`context "${contextName}" names cluster "${context.cluster}", which it does not define`);
  const user = parsed.users.find((u) => u.name === context.user)?.user ?? {};
  if (user.exec !== undefined || user['auth-provider'] !== undefined) {
    throw invalid(
      `user "${context.user}" gets its credentials from a plugin (exec or auth-provider), which cannot run here; store a token or a client certificate instead`,
    );
  }

  const file = (path: string): Buffer => {
    try {
      return readFileSync(isAbsolute(path) || !options.baseDir ? path : join(options.baseDir, path));
    } catch (error) {
      throw invalid(`cannot read ${path}: ${(error as Error).message}`);
    }
  };
  const pem = (data: string | undefined, path: string | undefined): Buffer | undefined =>
    data ? Buffer.from(data, 'base64') : path ? file(path) : undefined;

  const token = user.token ?? (user.tokenFile ? file(user.tokenFile).toString('utf8').trim() : undefined);
  const tls: Tls = {
    ca: pem(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: pem(user['client-certificate-data'], user['client-certificate']),
    key: pem(user['client-key-data'], user['client-key']),
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    ...(cluster['tls-server-name'] ? { servername: cluster['tls-server-name'] } : {}),
  };
  if (!token && !tls.cert)
    throw invalid(`user "${context.user}" has neither a token nor a client certificate`);
  return endpoint(cluster.server, tls, token ? { Authorization: `Bearer ${token}` } : {});
}
