/**
 * A cluster's Ceph RBD storage fencing, as the AWS stack takes it: the mgr's `restful` API, the key's
 * name, where the key is kept (Secrets Manager), the pinned certificate. Checked at synth time by the
 * very schema the step function parses at cold start (lib/adapters/ceph-rbd/settings.ts), so a setting
 * the function would refuse never deploys.
 */
import { X509Certificate } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import * as z from 'zod';
import { CEPH_ENV, cephRbdSettingsSchema } from '../lib/adapters/ceph-rbd/settings.js';
import { arnOrToken, checkedUnlessToken } from './token-checks.js';

/**
 * Where the restful key is kept: an existing secret (its complete ARN, or its name), or one the stack
 * creates holding a placeholder, for the operator to put the key in after the deploy.
 */
export const cephKeySecretSchema = z.union([
  z.strictObject({
    arn: checkedUnlessToken(
      z
        .string()
        .max(2048)
        .regex(/^arn:[^:]+:secretsmanager:[^:]*:\d{12}:secret:.+-[A-Za-z0-9]{6}$/, {
          error:
            'give the secret’s complete ARN (ending in its 6-character suffix), or its name as {"name": …}',
        }),
    ),
  }),
  z.strictObject({ name: z.string().regex(/^[A-Za-z0-9/_+=.@-]{1,512}$/, 'not a secret name') }),
  z.strictObject({ create: z.literal(true) }),
]);
export type CephKeySecret = z.infer<typeof cephKeySecretSchema>;

/** A cluster's Ceph settings in clusters.json. */
export const cephConfigSchema = z
  .strictObject({
    /** Every mgr's `restful` URL (`ceph mgr services`), the usual active one first; https only. */
    mgrUrls: z.array(z.string()).min(1).max(9),
    /** The restful key's name (`ceph restful create-key <name>`). */
    keyName: z.string(),
    /** Where the key is kept. */
    keySecret: cephKeySecretSchema,
    /** The customer-managed KMS key of that secret, if not the AWS-managed one. */
    keySecretKmsKeyArn: arnOrToken.optional(),
    /** The mgr's certificate (or its CA), PEM. */
    caPem: z.string(),
    serverName: z.string().optional(),
    fingerprintSha256: z.string().optional(),
    blocklistExpireSeconds: z.number().optional(),
    /** Per node name, the ranges of a separate storage network (not in the Node's InternalIPs). */
    extraRanges: z.record(z.string(), z.array(z.string())).optional(),
    /**
     * The ceph-csi `clusterID`s this Ceph cluster serves; set when ceph-csi or Rook serves several
     * clusters under one driver name (an image of any other is proven by the machine, never this
     * cluster's blocklist).
     */
    clusterIds: z.array(z.string()).optional(),
  })
  .superRefine((ceph, ctx) => {
    // The function's own rules, on what it will read at cold start (the key is not known here).
    const checked = cephRbdSettingsSchema.safeParse(cephSettingsInput(ceph, 'checked-at-cold-start'));
    for (const issue of checked.success ? [] : checked.error.issues) {
      const [field, ...rest] = issue.path.map(String);
      const path =
        field === 'mgrUrl'
          ? ['mgrUrls', 0]
          : field === 'standbyMgrUrls'
            ? ['mgrUrls', Number(rest[0]) + 1]
            : [field ?? '', ...rest];
      ctx.addIssue({
        code: 'custom',
        path: path.map((p) => (p === 'ca' ? 'caPem' : p)),
        message: issue.message,
      });
    }
    try {
      new X509Certificate(ceph.caPem);
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        path: ['caPem'],
        message: `not a certificate Node.js can read (${(error as Error).message}): give the PEM of \`ceph config-key get mgr/restful/<mgr>/crt\``,
      });
    }
    if (ceph.keySecretKmsKeyArn && 'create' in ceph.keySecret) {
      ctx.addIssue({
        code: 'custom',
        path: ['keySecretKmsKeyArn'],
        message: 'belongs with an existing secret; a created one uses the AWS-managed key',
      });
    }
  });
export type CephConfig = z.infer<typeof cephConfigSchema>;

/** What the settings schema reads, from the stack's config and a key. */
function cephSettingsInput(ceph: CephConfig, key: string): Record<string, unknown> {
  const [mgrUrl, ...standbyMgrUrls] = ceph.mgrUrls;
  return {
    mgrUrl,
    standbyMgrUrls,
    keyName: ceph.keyName,
    key,
    ca: ceph.caPem,
    ...(ceph.serverName === undefined ? {} : { serverName: ceph.serverName }),
    ...(ceph.fingerprintSha256 === undefined ? {} : { fingerprintSha256: ceph.fingerprintSha256 }),
    ...(ceph.blocklistExpireSeconds === undefined
      ? {}
      : { blocklistExpireSeconds: ceph.blocklistExpireSeconds }),
    ...(ceph.extraRanges === undefined ? {} : { extraRanges: ceph.extraRanges }),
    ...(ceph.clusterIds === undefined ? {} : { clusterIds: ceph.clusterIds }),
  };
}

/**
 * The step function's `FENCER_CEPH_*` environment: everything but the key, which it reads from the
 * secret `secretId` names at cold start.
 */
export function cephEnvironment(ceph: CephConfig, secretId: string): Record<string, string> {
  return {
    [CEPH_ENV.mgrUrl]: ceph.mgrUrls.join(','),
    [CEPH_ENV.keyName]: ceph.keyName,
    [CEPH_ENV.keySecretId]: secretId,
    [CEPH_ENV.ca]: ceph.caPem,
    ...(ceph.serverName === undefined ? {} : { [CEPH_ENV.serverName]: ceph.serverName }),
    ...(ceph.fingerprintSha256 === undefined ? {} : { [CEPH_ENV.fingerprint]: ceph.fingerprintSha256 }),
    ...(ceph.blocklistExpireSeconds === undefined
      ? {}
      : { [CEPH_ENV.expireSeconds]: String(ceph.blocklistExpireSeconds) }),
    ...(ceph.extraRanges === undefined ? {} : { [CEPH_ENV.extraRanges]: JSON.stringify(ceph.extraRanges) }),
    ...(ceph.clusterIds === undefined ? {} : { [CEPH_ENV.clusterIds]: ceph.clusterIds.join(',') }),
  };
}

/** A mgr as the network sees it: its address (when the URL names one) and its TCP port. */
export interface MgrEndpoint {
  readonly url: string;
  /** The IP literal of the URL, or `undefined` for a DNS name. */
  readonly ip: string | undefined;
  readonly port: number;
}

/** The mgrs' addresses and ports, for the functions' security group. */
export function mgrEndpoints(ceph: CephConfig): MgrEndpoint[] {
  return ceph.mgrUrls.map((url) => {
    const { hostname, port } = new URL(url);
    const host = hostname.replace(/^\[|\]$/g, '');
    return { url, ip: isIP(host) ? host : undefined, port: port ? Number(port) : 443 };
  });
}

/** Addresses a function outside a VPC cannot reach: RFC 1918, shared (CGNAT) and unique-local. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

/** The mgr URLs whose address is private, and so out of reach of a function that is not in the VPC. */
export function privateMgrUrls(ceph: CephConfig): string[] {
  return mgrEndpoints(ceph)
    .filter(({ ip }) => ip !== undefined && PRIVATE.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4'))
    .map((m) => m.url);
}
