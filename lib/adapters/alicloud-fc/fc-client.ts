import { $OpenApiUtil } from '@alicloud/openapi-core';
import { splitEndpoint } from '../shared/endpoint.js';
import { FcConfigError } from './errors.js';
import { FcClientClass } from './sdk.js';

/** The SDK's client. */
export type FcClient = InstanceType<typeof FcClientClass>;

/** A RAM role's STS credentials (Function Compute hands them to every invocation) or a key pair. */
export interface FcCredentials {
  readonly accessKeyId: string;
  readonly accessKeySecret: string;
  readonly securityToken?: string;
}

/** What {@link createFcClient} needs. */
export interface FcClientProps {
  readonly region: string;
  /** Needed for the default endpoint `<accountId>.<region>.fc.aliyuncs.com`. */
  readonly accountId?: string;
  readonly credentials: FcCredentials;
  /**
   * `host[:port]` or an `http(s)://` URL instead of the account's regional endpoint (the internal
   * endpoint `<account>.<region>-internal.fc.aliyuncs.com` from a VPC, the lab's emulator).
   */
  readonly endpoint?: string;
  readonly connectTimeoutMs?: number;
  readonly readTimeoutMs?: number;
}

const refuseEndpoint = (endpoint: string): FcConfigError =>
  new FcConfigError(`Function Compute endpoint ${JSON.stringify(endpoint)} is neither host[:port] nor a URL`);

/** Builds the Function Compute client; both timeouts are set, since httpx uses the connect one as idle timeout. */
export function createFcClient(props: FcClientProps): FcClient {
  const { accessKeyId, accessKeySecret, securityToken } = props.credentials;
  if (!accessKeyId || !accessKeySecret)
    throw new FcConfigError('Function Compute credentials are incomplete');
  if (!props.endpoint && !props.accountId) {
    throw new FcConfigError(
      'the Function Compute endpoint needs the account id (FC_ACCOUNT_ID) or an explicit endpoint',
    );
  }
  const target = props.endpoint
    ? splitEndpoint(props.endpoint, refuseEndpoint)
    : { host: `${props.accountId}.${props.region}.fc.aliyuncs.com`, protocol: 'https' as const };
  return new FcClientClass(
    new $OpenApiUtil.Config({
      accessKeyId,
      accessKeySecret,
      ...(securityToken ? { securityToken } : {}),
      regionId: props.region,
      endpoint: target.host,
      protocol: target.protocol,
      connectTimeout: props.connectTimeoutMs ?? 3_000,
      readTimeout: props.readTimeoutMs ?? 10_000,
    }),
  );
}
