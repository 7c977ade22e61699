/**
 * Reaches an EKS cluster as an IAM principal: its endpoint and CA from `DescribeCluster` (a signed
 * REST call, so the functions need no EKS SDK client), and a short-lived token for every connection.
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { KubernetesApiError } from '../../../domain/errors.js';
import type { Connection } from './connection.js';
import { dnsSuffix, eksToken } from './eks-token.js';
import { tokenEndpoint } from './endpoints.js';

export interface EksClusterOptions {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** The API server endpoint and its CA bundle (base64 PEM). */
export interface EksEndpoint {
  readonly endpoint: string;
  readonly caData: string;
}

/** `GET /clusters/{name}` on the EKS API, signed with SigV4. */
export async function describeEksCluster(options: EksClusterOptions): Promise<EksEndpoint> {
  const hostname = `eks.${options.region}.${dnsSuffix(options.region)}`;
  const path = `/clusters/${encodeURIComponent(options.clusterName)}`;
  const signer = new SignatureV4({
    service: 'eks',
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path,
    query: {},
    headers: { host: hostname },
  });
  const response = await (options.fetch ?? fetch)(`https://${hostname}${path}`, {
    headers: signed.headers,
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json().catch(() => ({}))) as {
    cluster?: { endpoint?: string; certificateAuthority?: { data?: string } };
    message?: string;
  };
  const endpoint = body.cluster?.endpoint;
  const caData = body.cluster?.certificateAuthority?.data;
  if (!response.ok || !endpoint || !caData) {
    throw new KubernetesApiError(
      `EKS DescribeCluster ${options.clusterName} failed (HTTP ${response.status}): ${body.message ?? 'no endpoint in the answer'}`,
      { statusCode: response.status },
    );
  }
  return { endpoint, caData };
}

/** Connects to an EKS cluster: the endpoint is described once, the token is fresh on every call. */
export function eksConnector(options: EksClusterOptions): () => Promise<Connection> {
  let endpoint: Promise<EksEndpoint> | undefined;
  return async () => {
    endpoint ??= describeEksCluster(options).catch((err: unknown) => {
      endpoint = undefined;
      throw err;
    });
    const [{ endpoint: server, caData }, { token, expiresAt }] = await Promise.all([
      endpoint,
      eksToken({
        clusterName: options.clusterName,
        region: options.region,
        credentials: options.credentials,
      }),
    ]);
    return { endpoint: tokenEndpoint({ server, caData, token }), expiresAt };
  };
}
