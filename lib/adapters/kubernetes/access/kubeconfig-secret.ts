/** A kubeconfig kept in Secrets Manager, for clusters that are not EKS (or not reachable with IAM). */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { KubernetesApiError } from '../../../domain/errors.js';
import type { Connector } from './connection.js';
import { kubeconfigEndpoint } from './endpoints.js';

/** Re-read the secret this often, so a rotated kubeconfig is picked up without a redeploy. */
export const SECRET_REFRESH_SECONDS = 15 * 60;

export interface KubeconfigSecretOptions {
  readonly secretArn: string;
  readonly client: SecretsManagerClient;
  /** @default () => Date.now() */
  readonly now?: () => number;
}

/** Connects with the kubeconfig YAML stored as the secret's string. */
export function kubeconfigSecretConnector(options: KubeconfigSecretOptions): Connector {
  return async () => {
    const now = options.now?.() ?? Date.now();
    let yaml: string | undefined;
    try {
      yaml = (await options.client.send(new GetSecretValueCommand({ SecretId: options.secretArn })))
        .SecretString;
    } catch (err) {
      throw new KubernetesApiError(`reading the kubeconfig secret failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (!yaml) throw new KubernetesApiError(`secret ${options.secretArn} holds no kubeconfig string`);
    return {
      endpoint: kubeconfigEndpoint(yaml, { source: options.secretArn }),
      expiresAt: now + SECRET_REFRESH_SECONDS * 1000,
    };
  };
}
