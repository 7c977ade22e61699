/**
 * The Ceph RBD fencer's settings, validated once at the edge (zod, unknown keys rejected, numbers
 * bounded), and read from the environment and files for the CLI and the functions.
 */
import * as z from 'zod';
import { parseRange, rangeText, unfenceableReason } from './addresses.js';
import { BlocklistDialect } from './commands.js';
import { CephInputError } from './errors.js';

const DAY = 86_400;

const httpsUrl = z.url({ protocol: /^https$/, error: 'must be an https:// URL (ceph mgr services)' });

/** A configured CIDR: parsed, canonical, and never loopback, unspecified or wider than /16 (/64). */
const fenceableRange = z.string().transform((text, ctx) => {
  try {
    const range = parseRange(text);
    const why = unfenceableReason(range);
    if (why) ctx.addIssue({ code: 'custom', message: why });
    return rangeText(range);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** What both ways into Ceph share: which volumes are this Ceph's, where its nodes' addresses are. */
const scopeFields = {
  /** An entry lapsing sooner than this is not a proof (and is renewed by the next fence). */
  minRemainingSeconds: z
    .number()
    .int()
    .min(60)
    .max(365 * DAY)
    .default(DAY),
  /** Extra ranges per node name, for a storage network that is not in the Node's InternalIPs. */
  extraRanges: z.record(z.string().min(1), z.array(fenceableRange).max(16)).default({}),
  /** CSI driver names besides `rbd.csi.ceph.com` and Rook's `<namespace>.rbd.csi.ceph.com`. */
  csiDrivers: z.array(z.string().min(1)).max(16).default([]),
  /**
   * The ceph-csi `clusterID`s that name this Ceph cluster (a PersistentVolume's
   * `spec.csi.volumeAttributes.clusterID`). Empty: every image of the drivers above is this cluster's.
   * Set when ceph-csi or Rook serves more than one Ceph cluster under one driver name: an image of any
   * other clusterID is never proven by this cluster's blocklist.
   */
  clusterIds: z
    .array(z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'a ceph-csi clusterID'))
    .max(16)
    .default([]),
  /** On a cluster without ranges, a range is fenced address by address, up to this many. */
  maxAddressesPerRange: z.number().int().min(1).max(4096).default(256),
};

/**
 * Ceph's own witness of who holds the node's images (`rbd status` as a read-only user: see witness.ts),
 * and the same user's reads of the blocklist and the monmap where the fence goes through csi-addons.
 */
const witnessSchema = z.strictObject({
  user: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a cephx user name without client.'),
  keyring: z.string().min(1).max(4096),
  monHost: z.string().min(1).max(1024).optional(),
  conf: z.string().min(1).max(4096).optional(),
  rbdPath: z.string().min(1).max(4096).optional(),
  cephPath: z.string().min(1).max(4096).optional(),
});

/** What the Ceph RBD storage fencer needs. Defaults are the documented production values. */
export const cephRbdSettingsSchema = z
  .strictObject({
    /** The ceph-mgr `restful` module's URL (`ceph mgr services`), https only. */
    mgrUrl: httpsUrl,
    /** The same module on the standby mgrs (only the active one answers), tried in turn. */
    standbyMgrUrls: z.array(httpsUrl).max(8).default([]),
    /** The restful key's name (`ceph restful create-key <name>`). */
    keyName: z.string().min(1).max(128),
    /** The restful key (a UUID). */
    key: z.string().min(1).max(256),
    /** PEM of the mgr's certificate (`ceph config-key get mgr/restful/<id>/crt`) or its CA. */
    ca: z.string().includes('-----BEGIN CERTIFICATE-----', { error: 'must be a PEM certificate' }),
    /** The name the certificate carries (the module's own self-signed one says `ceph-restful`). */
    serverName: z.string().min(1).max(253).default('ceph-restful'),
    /** Optional SHA-256 fingerprint pin on top of the CA check. */
    fingerprintSha256: z
      .string()
      .regex(/^([0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$/, 'must be a SHA-256 fingerprint')
      .optional(),
    timeoutMs: z.number().int().min(500).max(60_000).default(10_000),
    attempts: z.number().int().min(1).max(10).default(3),
    backoffMs: z.number().int().min(0).max(10_000).default(250),
    /**
     * How long an entry lasts. Long enough to outlive the run and the wait for the node's reboot, after
     * which the fencer lifts it; short enough that a node that never comes back (and whose address is
     * reused) is not shut out of Ceph for ever.
     */
    blocklistExpireSeconds: z
      .number()
      .int()
      .min(3600)
      .max(5 * 365 * DAY)
      .default(7 * DAY),
    /** How the cluster spells its blocklist; `auto` asks the mon's command table once. */
    dialect: z.enum(['auto', ...Object.values(BlocklistDialect)]).default('auto'),
    ...scopeFields,
    /** Absent: the fence covers the addresses the Node reports, and nothing checks them. */
    witness: witnessSchema.optional(),
  })
  .refine((s) => s.minRemainingSeconds < s.blocklistExpireSeconds, {
    message: 'minRemainingSeconds must be shorter than blocklistExpireSeconds',
    path: ['minRemainingSeconds'],
  });

export type CephRbdSettingsInput = z.input<typeof cephRbdSettingsSchema>;
export type CephRbdSettings = z.output<typeof cephRbdSettingsSchema>;

/** Validates settings; throws a {@link CephInputError} naming every problem (the secret never appears). */
export function parseCephRbdSettings(input: unknown): CephRbdSettings {
  const parsed = cephRbdSettingsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new CephInputError(`invalid Ceph RBD fencer settings: ${issues}`);
}

/**
 * The other way in, for a Ceph run by Rook or OpenShift Data Foundation (and Ceph 20, which has no
 * restful module): a csi-addons NetworkFence per node, carried out by the cluster's own ceph-csi, and
 * checked against Ceph's own blocklist, read by the read-only user (docs/ceph.md).
 */
export const cephNetworkFenceSettingsSchema = z.strictObject({
  /** The NetworkFenceClass that names ceph-csi's driver, its fence secret and the clusterID. */
  networkFenceClass: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'a NetworkFenceClass name (a DNS subdomain)'),
  /**
   * How long one step waits for a fence or an unfence to show on Ceph's list before it fails (and the
   * next step looks again). Within the step's 20 s action budget by default.
   */
  fenceTimeoutSeconds: z.number().int().min(5).max(600).default(15),
  ...scopeFields,
  /** Required: without Ceph's own reads, the fencer would have only csi-addons' word for the fence. */
  witness: witnessSchema,
});

export type CephNetworkFenceSettings = z.output<typeof cephNetworkFenceSettingsSchema>;

/** Validates NetworkFence settings; throws a {@link CephInputError} naming every problem. */
export function parseCephNetworkFenceSettings(input: unknown): CephNetworkFenceSettings {
  const parsed = cephNetworkFenceSettingsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new CephInputError(`invalid Ceph NetworkFence settings: ${issues}`);
}

/** The environment variables the CLI and the functions read. */
export const CEPH_ENV = {
  mgrUrl: 'FENCER_CEPH_MGR_URL',
  keyName: 'FENCER_CEPH_KEY_NAME',
  key: 'FENCER_CEPH_KEY',
  keyFile: 'FENCER_CEPH_KEY_FILE',
  /** A Secrets Manager secret (ARN or name) holding the key: the functions read it once, at cold start. */
  keySecretId: 'FENCER_CEPH_KEY_SECRET_ID',
  ca: 'FENCER_CEPH_CA',
  caFile: 'FENCER_CEPH_CA_FILE',
  serverName: 'FENCER_CEPH_TLS_SERVER_NAME',
  fingerprint: 'FENCER_CEPH_CERT_SHA256',
  expireSeconds: 'FENCER_CEPH_BLOCKLIST_EXPIRE_SECONDS',
  extraRanges: 'FENCER_CEPH_EXTRA_RANGES',
  /** The ceph-csi clusterIDs this Ceph cluster serves, comma-separated. */
  clusterIds: 'FENCER_CEPH_CLUSTER_ID',
  /** The witness's read-only cephx user (without `client.`): set, the fencer reads each image's watchers. */
  witnessUser: 'FENCER_CEPH_WITNESS_ID',
  witnessKeyring: 'FENCER_CEPH_WITNESS_KEYRING',
  monHost: 'FENCER_CEPH_MON_HOST',
  conf: 'FENCER_CEPH_CONF',
  /** Set instead of the mgr URL: fence through csi-addons with this NetworkFenceClass. */
  networkFenceClass: 'FENCER_CEPH_NETWORK_FENCE_CLASS',
  networkFenceTimeout: 'FENCER_CEPH_NETWORK_FENCE_TIMEOUT_SECONDS',
} as const;

type Env = Readonly<Record<string, string | undefined>>;

/** A secret from the variable itself or from the file another variable names (a mounted secret). */
function secretFrom(
  env: Env,
  value: string,
  file: string,
  readText: (path: string) => string,
): string | undefined {
  if (env[value] && env[file]) throw new CephInputError(`set ${value} or ${file}, not both`);
  const path = env[file];
  if (!path) return env[value];
  try {
    return readText(path).trim();
  } catch (error) {
    throw new CephInputError(`cannot read ${file}=${path}: ${(error as Error).message}`);
  }
}

const jsonOrUndefined = (name: string, text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new CephInputError(`${name} is not JSON`);
  }
};

/** The settings both ways in read alike: ranges, clusterIDs, the read-only user. */
function scopeFromEnv(env: Env): Record<string, unknown> {
  const clusterIds = env[CEPH_ENV.clusterIds];
  return {
    ...(env[CEPH_ENV.extraRanges]
      ? { extraRanges: jsonOrUndefined(CEPH_ENV.extraRanges, env[CEPH_ENV.extraRanges]) }
      : {}),
    ...(clusterIds ? { clusterIds: clusterIds.split(',').map((id) => id.trim()) } : {}),
    ...(env[CEPH_ENV.witnessUser]
      ? {
          witness: {
            user: env[CEPH_ENV.witnessUser],
            keyring: env[CEPH_ENV.witnessKeyring],
            ...(env[CEPH_ENV.monHost] ? { monHost: env[CEPH_ENV.monHost] } : {}),
            ...(env[CEPH_ENV.conf] ? { conf: env[CEPH_ENV.conf] } : {}),
          },
        }
      : {}),
  };
}

/**
 * NetworkFence settings from `FENCER_CEPH_*`; `undefined` when `FENCER_CEPH_NETWORK_FENCE_CLASS` is
 * unset. Setting it together with `FENCER_CEPH_MGR_URL` is an error: one Ceph, one way in.
 */
export function cephNetworkFenceSettingsFromEnv(env: Env): CephNetworkFenceSettings | undefined {
  const networkFenceClass = env[CEPH_ENV.networkFenceClass];
  if (!networkFenceClass) return undefined;
  if (env[CEPH_ENV.mgrUrl]) {
    throw new CephInputError(`set ${CEPH_ENV.mgrUrl} or ${CEPH_ENV.networkFenceClass}, not both`);
  }
  if (!env[CEPH_ENV.witnessUser]) {
    throw new CephInputError(
      `${CEPH_ENV.networkFenceClass} needs ${CEPH_ENV.witnessUser} and ${CEPH_ENV.witnessKeyring}: the fence is checked against Ceph's own blocklist, read by that user`,
    );
  }
  const timeout = env[CEPH_ENV.networkFenceTimeout];
  return parseCephNetworkFenceSettings({
    networkFenceClass,
    ...(timeout ? { fenceTimeoutSeconds: Number(timeout) } : {}),
    ...scopeFromEnv(env),
  });
}

/**
 * Settings from `FENCER_CEPH_*`; `undefined` when `FENCER_CEPH_MGR_URL` is unset (no Ceph fencing).
 * `FENCER_CEPH_MGR_URL` may list every mgr's URL, comma-separated.
 * The key and the certificate may come from files (`…_FILE`), as mounted secrets do.
 */
export function cephRbdSettingsFromEnv(
  env: Env,
  readText: (path: string) => string,
): CephRbdSettings | undefined {
  if (!env[CEPH_ENV.mgrUrl]) return undefined;
  const expire = env[CEPH_ENV.expireSeconds];
  // One URL per mgr, comma-separated: the active one's first.
  const [mgrUrl, ...standbyMgrUrls] = (env[CEPH_ENV.mgrUrl] ?? '').split(',').map((u) => u.trim());
  return parseCephRbdSettings({
    mgrUrl,
    standbyMgrUrls,
    keyName: env[CEPH_ENV.keyName],
    key: secretFrom(env, CEPH_ENV.key, CEPH_ENV.keyFile, readText),
    ca: secretFrom(env, CEPH_ENV.ca, CEPH_ENV.caFile, readText),
    ...(env[CEPH_ENV.serverName] ? { serverName: env[CEPH_ENV.serverName] } : {}),
    ...(env[CEPH_ENV.fingerprint] ? { fingerprintSha256: env[CEPH_ENV.fingerprint] } : {}),
    ...(expire ? { blocklistExpireSeconds: Number(expire) } : {}),
    ...scopeFromEnv(env),
  });
}
