/** The EKS bearer token: a presigned STS GetCallerIdentity that signs the cluster name (what `aws eks get-token` makes). */
import { describe, expect, it } from 'vitest';
import { eksConnector, eksToken } from '../../../../../lib/adapters/kubernetes/access/index.js';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'tok/en+=',
};
const now = () => new Date('2026-02-02T17:00:00Z');

const decode = (token: string): URL =>
  new URL(Buffer.from(token.replace(/^k8s-aws-v1\./, ''), 'base64url').toString());

describe('eksToken', () => {
  it('is k8s-aws-v1. and an unpadded base64url presigned GetCallerIdentity URL on the regional STS endpoint', async () => {
    const { token } = await eksToken({ clusterName: 'prod', region: 'eu-west-1', credentials, now });

    expect(token).toMatch(/^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const url = decode(token);
    expect(url.origin).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      Action: 'GetCallerIdentity',
      Version: '2011-06-15',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20260202/eu-west-1/sts/aws4_request',
      'X-Amz-Date': '20260202T170000Z',
      'X-Amz-Expires': '60',
      'X-Amz-Security-Token': 'tok/en+=',
      'X-Amz-Signature': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('signs the x-k8s-aws-id header, so the token is good for this cluster only', async () => {
    const a = await eksToken({ clusterName: 'prod', region: 'us-east-1', credentials, now });
    const b = await eksToken({ clusterName: 'staging', region: 'us-east-1', credentials, now });

    expect(decode(a.token).searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(decode(a.token).searchParams.get('X-Amz-Signature')).not.toBe(
      decode(b.token).searchParams.get('X-Amz-Signature'),
    );
  });

  it('expires well within the 15 minutes EKS honours', async () => {
    const { expiresAt } = await eksToken({ clusterName: 'prod', region: 'us-east-1', credentials, now });

    expect(expiresAt - now().getTime()).toBe(14 * 60_000);
  });

  it('uses the China partition’s domain in cn- regions', async () => {
    const { token } = await eksToken({ clusterName: 'prod', region: 'cn-north-1', credentials, now });

    expect(decode(token).host).toBe('sts.cn-north-1.amazonaws.com.cn');
  });
});

describe('eksConnector', () => {
  const described = { endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', caData: 'Q0E=' };

  it('describes the cluster once and signs a fresh token for every connection', async () => {
    let describes = 0;
    const connect = eksConnector({
      clusterName: 'prod',
      region: 'us-east-1',
      credentials,
      describe: async () => {
        describes++;
        return described;
      },
    });

    const [a, b] = [await connect(), await connect()];

    expect(describes).toBe(1);
    expect(a.endpoint.server).toBe(described.endpoint);
    const auth = [
      (await a.endpoint.auth()).headers.Authorization,
      (await b.endpoint.auth()).headers.Authorization,
    ];
    expect(auth.every((h) => h?.startsWith('Bearer k8s-aws-v1.'))).toBe(true);
  });

  it('describes again after a failed describe, instead of keeping the failure', async () => {
    let describes = 0;
    const connect = eksConnector({
      clusterName: 'prod',
      region: 'us-east-1',
      credentials,
      describe: async () => {
        describes++;
        if (describes === 1) throw new Error('EKS throttled');
        return described;
      },
    });

    await expect(connect()).rejects.toThrow('EKS throttled');
    expect((await connect()).endpoint.server).toBe(described.endpoint);
    expect(describes).toBe(2);
  });
});
