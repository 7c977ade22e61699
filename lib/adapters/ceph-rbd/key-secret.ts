/**
 * The restful key kept in a secret store (Secrets Manager in Lambda): read once, before the settings are
 * parsed, so the rest of the fencer sees it as if it were `FENCER_CEPH_KEY`. The store itself is a
 * callback: this module knows no SDK, and the functions pass theirs.
 */
import { CephInputError } from './errors.js';
import { CEPH_ENV } from './settings.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What a secret made empty by the deployment holds until an operator puts the key in it. Recognised at
 * cold start, so the function says what to do instead of failing every fence with `AuthRefused`.
 */
export const CEPH_KEY_PLACEHOLDER = 'REPLACE-ME: the key printed by `ceph restful create-key <name>`';

/** Reads a secret's string by its id (ARN or name); `undefined` when it holds no string. */
export type ReadSecretString = (secretId: string) => Promise<string | undefined>;

/**
 * The environment with `FENCER_CEPH_KEY` taken from the secret `FENCER_CEPH_KEY_SECRET_ID` names;
 * unchanged when that is unset. Throws a {@link CephInputError} (the key never in it) when the key is
 * also given another way, the secret cannot be read, or it holds no key yet.
 */
export async function withCephKeyFromSecret(env: Env, readSecret: ReadSecretString): Promise<Env> {
  const secretId = env[CEPH_ENV.keySecretId];
  if (!secretId) return env;
  if (!env[CEPH_ENV.mgrUrl]) {
    throw new CephInputError(`${CEPH_ENV.keySecretId} is set but ${CEPH_ENV.mgrUrl} is not`);
  }
  const other = [CEPH_ENV.key, CEPH_ENV.keyFile].filter((name) => env[name]);
  if (other.length > 0) {
    throw new CephInputError(`set ${CEPH_ENV.keySecretId} or ${other.join(' or ')}, not both`);
  }
  let text: string | undefined;
  try {
    text = await readSecret(secretId);
  } catch (error) {
    throw new CephInputError(
      `cannot read the Ceph restful key from secret ${secretId}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const key = text?.trim();
  if (!key || key === CEPH_KEY_PLACEHOLDER) {
    const name = env[CEPH_ENV.keyName] ?? '<name>';
    throw new CephInputError(
      `secret ${secretId} holds no Ceph restful key yet: put the key printed by \`ceph restful create-key ${name}\` in it (docs/deploy-aws.md, "Deploying with Ceph RBD")`,
    );
  }
  return { ...env, [CEPH_ENV.key]: key };
}
