/**
 * The API server of an EKS cluster, from `DescribeCluster`: the SDK's client, with its retries, its
 * credentials chain and its error parsing, in place of a hand-signed request.
 */
import {
  DescribeClusterCommand,
  EKSClient,
  type EKSClientConfig,
  ResourceNotFoundException,
} from '@aws-sdk/client-eks';
import { KubernetesApiError } from '../../domain/errors.js';

/**
 * A function connects once per container (and again when the connection is renewed): a few attempts,
 * each bounded, so a cold start never waits out the function's timeout on EKS alone.
 */
export const EKS_CLIENT_DEFAULTS = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
} as const satisfies Partial<EKSClientConfig>;

/** Builds the EKS client; `overrides` win (an endpoint for an emulator, credentials in tests). */
export const createEksClient = (region: string, overrides: Partial<EKSClientConfig> = {}): EKSClient =>
  new EKSClient({ ...EKS_CLIENT_DEFAULTS, region, ...overrides });

/** The API server endpoint and its CA bundle (base64 PEM), as the cluster access needs them. */
export interface EksClusterEndpoint {
  readonly endpoint: string;
  readonly caData: string;
}

/**
 * Describes `clusterName`. A cluster that is missing, not yet active or answers without an endpoint is
 * a KubernetesApiError (the workflow retries it), naming the cluster and EKS's own message.
 */
export async function describeEksCluster(
  client: EKSClient,
  clusterName: string,
): Promise<EksClusterEndpoint> {
  let cluster: { endpoint?: string; certificateAuthority?: { data?: string }; status?: string } | undefined;
  try {
    cluster = (await client.send(new DescribeClusterCommand({ name: clusterName }))).cluster;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const what = error instanceof ResourceNotFoundException ? 'no such cluster' : (error as Error).name;
    throw new KubernetesApiError(
      `EKS DescribeCluster ${clusterName} failed (${what}): ${(error as Error).message}`,
      { cause: error, ...(status ? { statusCode: status } : {}) },
    );
  }
  const endpoint = cluster?.endpoint;
  const caData = cluster?.certificateAuthority?.data;
  if (!endpoint || !caData) {
    throw new KubernetesApiError(
      `EKS DescribeCluster ${clusterName}: no endpoint or CA in the answer (cluster status ${cluster?.status ?? 'unknown'})`,
      {},
    );
  }
  return { endpoint, caData };
}
