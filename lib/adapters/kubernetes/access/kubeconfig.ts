/**
 * Kubeconfigs as kubectl reads them, for the CLI and the lab: @kubernetes/client-node merges
 * `KUBECONFIG`, selects contexts and runs credential plugins (`aws eks get-token`, OIDC). Never
 * imported by the functions, which keep that library out of their bundles (see endpoints.ts).
 */
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { ValidationError } from '../../../domain/errors.js';
import type { ApiEndpoint, RequestAuth } from '../api/endpoint.js';

/** Loads a kubeconfig file (or the default locations) and selects a context. */
export function loadKubeConfig(
  options: { readonly path?: string; readonly context?: string } = {},
): KubeConfig {
  const kc = new KubeConfig();
  if (options.path) kc.loadFromFile(options.path);
  else kc.loadFromDefault();
  if (options.context) kc.setCurrentContext(options.context);
  return kc;
}

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
