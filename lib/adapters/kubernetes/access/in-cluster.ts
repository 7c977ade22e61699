/**
 * The API server as a pod sees it: `KUBERNETES_SERVICE_HOST`/`_PORT`, the cluster's CA and the pod's
 * ServiceAccount token, mounted where the kubelet puts them. The token is a projected one that the
 * kubelet rotates (about hourly): it is read again at most every minute, so a long-running controller
 * never sends an expired one.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { ValidationError } from '../../../domain/errors.js';
import type { ApiEndpoint, RequestAuth } from '../api/endpoint.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const TOKEN_TTL_MS = 60_000;

/** Whether this process runs in a pod with the API server's Service in its environment. */
export const inCluster = (env: NodeJS.ProcessEnv): boolean =>
  Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT);

export function inClusterEndpoint(env: NodeJS.ProcessEnv, dir = SERVICE_ACCOUNT_DIR): ApiEndpoint {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new ValidationError(
      'not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (give --kubeconfig)',
    );
  }
  const read = (name: string): string => {
    try {
      return readFileSync(`${dir}/${name}`, 'utf8');
    } catch (error) {
      throw new ValidationError(
        `in-cluster access: cannot read ${dir}/${name} (is a ServiceAccount token mounted?): ${(error as Error).message}`,
      );
    }
  };
  const agent = new Agent({ ca: read('ca.crt'), rejectUnauthorized: true, keepAlive: true });
  let token: { value: string; readAt: number } = { value: read('token').trim(), readAt: Date.now() };
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    server,
    async auth(): Promise<RequestAuth> {
      if (Date.now() - token.readAt > TOKEN_TTL_MS)
        token = { value: read('token').trim(), readAt: Date.now() };
      return { agent, headers: { Authorization: `Bearer ${token.value}` } };
    },
  };
}
