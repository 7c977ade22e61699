/** A kubeconfig kept in Secrets Manager, read with the SDK's own client (aws-sdk-client-mock). */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  kubeconfigSecretConnector,
  SECRET_REFRESH_SECONDS,
} from '../../../../../lib/adapters/kubernetes/access/index.js';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:edge-kubeconfig-AbCdEf';
const YAML = `apiVersion: v1
kind: Config
clusters: [{name: edge, cluster: {server: 'https://edge.example:6443', certificate-authority-data: Q0E=}}]
users: [{name: fencer, user: {token: sa-token}}]
contexts: [{name: edge, context: {cluster: edge, user: fencer}}]
current-context: edge
`;
const sm = mockClient(SecretsManagerClient);
const connect = () =>
  kubeconfigSecretConnector({
    secretArn: ARN,
    client: new SecretsManagerClient({ region: 'us-east-1' }),
    now: () => 1_000,
  })();

describe('kubeconfigSecretConnector', () => {
  beforeEach(() => sm.reset());

  it('connects with the kubeconfig stored as the secret string, and re-reads it after a while', async () => {
    sm.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: YAML });

    const { endpoint, expiresAt } = await connect();

    expect(endpoint.server).toBe('https://edge.example:6443');
    expect((await endpoint.auth()).headers).toStrictEqual({ Authorization: 'Bearer sa-token' });
    expect(expiresAt).toBe(1_000 + SECRET_REFRESH_SECONDS * 1000);
  });

  it('refuses a secret that holds no usable kubeconfig with a ValidationError naming the secret', async () => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: 'just: [text' });

    await expect(connect()).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining(`kubeconfig ${ARN}: not a kubeconfig`),
    });
  });

  it('fails with a KubernetesApiError (retried by the workflow) when the secret cannot be read or is empty', async () => {
    sm.on(GetSecretValueCommand).rejectsOnce(new Error('AccessDeniedException')).resolves({});

    await expect(connect()).rejects.toMatchObject({
      name: 'KubernetesApiError',
      message: expect.stringContaining('AccessDenied'),
    });
    await expect(connect()).rejects.toMatchObject({
      name: 'KubernetesApiError',
      message: expect.stringContaining('no kubeconfig'),
    });
  });
});
