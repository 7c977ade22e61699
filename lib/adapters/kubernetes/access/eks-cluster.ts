/**
 * Reaches an EKS cluster as an IAM principal: its endpoint and CA from `DescribeCluster` (described by
 * the composition root with the EKS SDK client, lib/adapters/aws-eks), and a short-lived token for
 * every connection.
 */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { Connection } from './connection.js';
import { eksToken } from './eks-token.js';
import { tokenEndpoint } from './endpoints.js';

/** The API server endpoint and its CA bundle (base64 PEM). */
export interface EksEndpoint {
  readonly endpoint: string;
  readonly caData: string;
}

export interface EksClusterOptions {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** `DescribeCluster`: where the API server is and its CA. */
  readonly describe: () => Promise<EksEndpoint>;
}

/** Connects to an EKS cluster: the endpoint is described once (again after a failure), the token is fresh on every call. */
export function eksConnector(options: EksClusterOptions): () => Promise<Connection> {
  let endpoint: Promise<EksEndpoint> | undefined;
  return async () => {
    endpoint ??= options.describe().catch((err: unknown) => {
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
