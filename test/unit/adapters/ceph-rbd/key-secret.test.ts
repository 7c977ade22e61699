/** The restful key from a secret store: read once, before the settings are parsed, with a clear error. */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CephInputError } from '../../../../lib/adapters/ceph-rbd/errors.js';
import { CEPH_KEY_PLACEHOLDER, withCephKeyFromSecret } from '../../../../lib/adapters/ceph-rbd/key-secret.js';
import { CEPH_ENV, cephRbdSettingsFromEnv } from '../../../../lib/adapters/ceph-rbd/settings.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ceph-key-AbCdEf';
const env = {
  [CEPH_ENV.mgrUrl]: 'https://10.0.0.5:8003/',
  [CEPH_ENV.keyName]: 'kube-fencer',
  [CEPH_ENV.ca]: PEM,
  [CEPH_ENV.keySecretId]: SECRET,
};
const noFiles = (path: string): string => {
  throw new Error(`unexpected read of ${path}`);
};

describe('withCephKeyFromSecret', () => {
  it('puts the secret’s key, trimmed, where the settings read it, reading the secret once by its id', async () => {
    const read = vi.fn(async () => '  0f4b2c1e-9d7a-4e55-8f00-1c2d3e4f5a6b\n');

    const settings = cephRbdSettingsFromEnv(await withCephKeyFromSecret(env, read), noFiles);

    expect(read).toHaveBeenCalledTimes(1);
    expect(read).toHaveBeenCalledWith(SECRET);
    expect(settings?.key).toBe('0f4b2c1e-9d7a-4e55-8f00-1c2d3e4f5a6b');
  });

  it('leaves an environment without a secret id as it is, reading nothing', async () => {
    const read = vi.fn(async () => 'never');
    const { [CEPH_ENV.keySecretId]: _, ...plain } = env;

    expect(await withCephKeyFromSecret(plain, read)).toBe(plain);
    expect(read).not.toHaveBeenCalled();
  });

  it.each([CEPH_ENV.key, CEPH_ENV.keyFile])('refuses the secret together with %s', async (other) => {
    const read = vi.fn(async () => 'key');

    await expect(withCephKeyFromSecret({ ...env, [other]: 'x' }, read)).rejects.toThrow(
      new CephInputError(`set ${CEPH_ENV.keySecretId} or ${other}, not both`),
    );
    expect(read).not.toHaveBeenCalled();
  });

  it('refuses a secret id without a mgr URL (a deployment half done)', async () => {
    const { [CEPH_ENV.mgrUrl]: _, ...noMgr } = env;
    await expect(withCephKeyFromSecret(noMgr, async () => 'key')).rejects.toThrow(
      /FENCER_CEPH_KEY_SECRET_ID is set but FENCER_CEPH_MGR_URL is not/,
    );
  });

  it('names the secret and the store’s error when the secret cannot be read', async () => {
    const denied = Object.assign(
      new Error('User is not authorized to perform: secretsmanager:GetSecretValue'),
      {
        name: 'AccessDeniedException',
      },
    );

    const attempt = withCephKeyFromSecret(env, async () => Promise.reject(denied));

    await expect(attempt).rejects.toBeInstanceOf(CephInputError);
    await expect(attempt).rejects.toThrow(
      `cannot read the Ceph restful key from secret ${SECRET}: User is not authorized`,
    );
  });

  it.each([
    ['the placeholder the stack puts in a secret it creates', CEPH_KEY_PLACEHOLDER],
    ['nothing but blanks', ' \n'],
    ['no string at all (a binary secret)', undefined],
  ])('says what to do when the secret holds %s', async (_what, value) => {
    await expect(withCephKeyFromSecret(env, async () => value)).rejects.toThrow(
      `secret ${SECRET} holds no Ceph restful key yet: put the key printed by \`ceph restful create-key kube-fencer\` in it`,
    );
  });

  it('never puts the key in an error, whatever else is wrong', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uuid(),
        fc.constantFrom(CEPH_ENV.key, CEPH_ENV.keyFile, 'none'),
        async (key, other) => {
          const withOther = other === 'none' ? env : { ...env, [other]: 'x' };
          try {
            // A key the settings then refuse: a CA that is not PEM.
            cephRbdSettingsFromEnv(
              await withCephKeyFromSecret({ ...withOther, [CEPH_ENV.ca]: 'not a pem' }, async () => key),
              noFiles,
            );
            expect.unreachable('the settings must be refused');
          } catch (error) {
            expect(error).toBeInstanceOf(CephInputError);
            expect((error as Error).message).not.toContain(key);
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
