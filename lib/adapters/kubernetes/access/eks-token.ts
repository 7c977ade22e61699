/**
 * The bearer token EKS accepts from an IAM principal: a presigned STS `GetCallerIdentity` URL that
 * names the cluster in the signed `x-k8s-aws-id` header, base64url-encoded behind `k8s-aws-v1.`
 * (what `aws eks get-token` prints). The API server asks STS who signed it and maps the role
 * through the cluster's access entries.
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/** EKS honours a token for 15 minutes; refresh well before. */
export const EKS_TOKEN_LIFETIME_SECONDS = 14 * 60;

/** The DNS suffix of a region's partition. */
export const dnsSuffix = (region: string): string =>
  region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';

export interface EksToken {
  readonly token: string;
  /** When to stop using it (epoch ms). */
  readonly expiresAt: number;
}

export interface EksTokenOptions {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

const query = (params: Readonly<Record<string, string | string[] | null>>): string =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v ?? '']]))
    .map(([k, v]) => `${encodeURIComponent(k ?? '')}=${encodeURIComponent(v ?? '')}`)
    .join('&');

/** Presigns `GetCallerIdentity` on the regional STS endpoint and wraps it as an EKS token. */
export async function eksToken(options: EksTokenOptions): Promise<EksToken> {
  const now = options.now?.() ?? new Date();
  const hostname = `sts.${options.region}.${dnsSuffix(options.region)}`;
  const signer = new SignatureV4({
    service: 'sts',
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
  });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, 'x-k8s-aws-id': options.clusterName },
    },
    { expiresIn: 60, signingDate: now },
  );
  const url = `https://${hostname}/?${query(signed.query ?? {})}`;
  return {
    token: `k8s-aws-v1.${Buffer.from(url).toString('base64url')}`,
    expiresAt: now.getTime() + EKS_TOKEN_LIFETIME_SECONDS * 1000,
  };
}
