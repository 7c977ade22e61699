/**
 * Where the API server is and how to authenticate to it: what the Kubernetes adapter needs from a
 * kubeconfig, an EKS token or a secret. Kept apart from any client library, so the Lambda bundles
 * carry only node:http(s).
 */
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';

/** The transport settings of one request. */
export interface RequestAuth {
  /** Carries the TLS settings (CA, client certificate) and keeps connections alive. */
  readonly agent: HttpAgent | HttpsAgent;
  /** Authorization and impersonation headers. */
  readonly headers: Readonly<Record<string, string>>;
}

/** One API server, and fresh credentials for each request (exec plugins and tokens expire). */
export interface ApiEndpoint {
  /** e.g. `https://10.0.0.1:6443`, without a trailing slash. */
  readonly server: string;
  auth(): Promise<RequestAuth>;
}
