/**
 * DescribeCluster through the EKS SDK client against the EC2 emulator's EKS (moto server, real HTTP,
 * real SDK): the endpoint and CA the functions connect with, and a clear, retryable error for a
 * cluster that is not there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateClusterCommand, type EKSClient } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ec2Emulator, startEc2Emulator } from '../../../lab/ec2-emulator.js';
import { createEksClient, describeEksCluster } from '../../../lib/adapters/aws-eks/index.js';

let runDir: string;
let emulator: Ec2Emulator | undefined;
let client: EKSClient;

beforeAll(async () => {
  runDir = mkdtempSync(join(tmpdir(), 'kube-fencer-eks-'));
  emulator = await startEc2Emulator({ runDir });
  client = createEksClient(emulator.region, {
    endpoint: emulator.endpoint,
    credentials: { accessKeyId: emulator.accessKeyId, secretAccessKey: emulator.secretAccessKey },
  });
});
afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
  if (emulator) rmSync(runDir, { recursive: true, force: true });
});

describe('describeEksCluster', () => {
  it('returns the API server endpoint and its CA bundle', async () => {
    const created = await client.send(
      new CreateClusterCommand({
        name: 'prod',
        roleArn: 'arn:aws:iam::123456789012:role/eks',
        resourcesVpcConfig: { subnetIds: ['subnet-0123456789abcdef0'] },
      }),
    );

    const endpoint = await describeEksCluster(client, 'prod');

    expect(endpoint).toEqual({
      endpoint: created.cluster?.endpoint,
      caData: created.cluster?.certificateAuthority?.data,
    });
    expect(endpoint.endpoint).toMatch(/^https:\/\//);
    expect(endpoint.caData.length).toBeGreaterThan(0);
  });

  it('fails with a KubernetesApiError (the workflow retries it) naming a cluster that does not exist', async () => {
    await expect(describeEksCluster(client, 'nowhere')).rejects.toMatchObject({
      name: 'KubernetesApiError',
      statusCode: 404,
      message: expect.stringContaining('EKS DescribeCluster nowhere failed (no such cluster)'),
    });
  });
});
