/**
 * The step function's cold start with the Ceph key in Secrets Manager: read once, before the first step,
 * and a clear failure of the init (never a run without its storage fence) when it holds no key.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CEPH_KEY_PLACEHOLDER } from '../../../lib/adapters/ceph-rbd/key-secret.js';
import { CEPH_ENV } from '../../../lib/adapters/ceph-rbd/settings.js';

const composed = vi.hoisted(() => ({ configs: [] as Record<string, unknown>[] }));
vi.mock('../../../lib/compose.js', () => ({
  composeDeps: (config: Record<string, unknown>) => {
    composed.configs.push(config);
    return { composed: true };
  },
}));
vi.mock('../../../functions/shared/connection.js', () => ({
  settings: { region: 'us-east-1', accountId: '123456789012' },
  log: {},
  metrics: {},
  perConnection: (build: (c: { endpoint: unknown }) => unknown) => async () => build({ endpoint: {} }),
}));

const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ceph-restful-key-AbCdEf';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const secrets = mockClient(SecretsManagerClient);

const coldStart = async () => {
  vi.resetModules();
  return import('../../../functions/shared/step-runtime.js');
};

describe('the step function’s Ceph settings at cold start', () => {
  beforeEach(() => {
    secrets.reset();
    composed.configs.length = 0;
    vi.stubEnv(CEPH_ENV.mgrUrl, 'https://10.0.0.5:8003/');
    vi.stubEnv(CEPH_ENV.keyName, 'kube-fencer');
    vi.stubEnv(CEPH_ENV.ca, PEM);
    vi.stubEnv(CEPH_ENV.keySecretId, SECRET);
  });
  afterEach(() => vi.unstubAllEnvs());

  it('reads the key from the secret once, and every step fences with it', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: SECRET }).resolves({ SecretString: 'c0ffee-key\n' });

    const { fencerDeps } = await coldStart();
    await fencerDeps();
    await fencerDeps();

    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(composed.configs.at(-1)?.ceph).toMatchObject({ keyName: 'kube-fencer', key: 'c0ffee-key' });
  });

  it('fails the init, saying what to do, while the secret holds the stack’s placeholder', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: CEPH_KEY_PLACEHOLDER });

    await expect(coldStart()).rejects.toThrow(
      `secret ${SECRET} holds no Ceph restful key yet: put the key printed by \`ceph restful create-key kube-fencer\` in it`,
    );
  });

  it('fails the init, naming the secret, when it cannot be read', async () => {
    secrets.on(GetSecretValueCommand).rejects(new Error('AccessDeniedException: not authorized'));

    await expect(coldStart()).rejects.toThrow(`cannot read the Ceph restful key from secret ${SECRET}`);
  });

  it('asks Secrets Manager nothing, and fences machines only, without Ceph settings', async () => {
    for (const name of [CEPH_ENV.mgrUrl, CEPH_ENV.keyName, CEPH_ENV.ca, CEPH_ENV.keySecretId])
      vi.stubEnv(name, '');

    const { fencerDeps } = await coldStart();
    await fencerDeps();

    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
    expect(composed.configs.at(-1)).not.toHaveProperty('ceph');
  });
});
