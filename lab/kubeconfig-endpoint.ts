/**
 * The lab's API endpoint, from the client-node KubeConfig the lab already holds for its control plane.
 * It lives here, not in lib/, because the fencer reads kubeconfigs without that library
 * (lib/adapters/kubernetes/access/: the functions from a secret or a file, the CLI with kubectl's rules
 * and credential plugins): only the lab and its tests hand a KubeConfig to the fencer's API client.
 */
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiEndpoint, RequestAuth } from '../lib/adapters/kubernetes/api/endpoint.js';
import { ValidationError } from '../lib/domain/errors.js';

/**
 * The endpoint of a KubeConfig's current context. Credentials are applied per request (a plugin's
 * token expires); the TLS agent of the first request is kept, so connections are reused.
 */
export function kubeConfigEndpoint(kc: KubeConfig): ApiEndpoint {
  const server = kc.getCurrentCluster()?.server;
  if (!server)
    throw new ValidationError(`kubeconfig context "${kc.getCurrentContext()}" names no cluster server`);
  let agent: RequestAuth['agent'] | undefined;
  return {
    server: server.replace(/\/+$/, ''),
    async auth() {
      const options: RequestOptions = {};
      await kc.applyToHTTPSOptions(options);
      agent ??= options.agent as RequestAuth['agent'];
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(options.headers ?? {})) headers[name] = String(value);
      if (options.auth) headers.Authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
      return { agent, headers };
    },
  };
}
