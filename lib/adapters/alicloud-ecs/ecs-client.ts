import { $OpenApiUtil } from '@alicloud/openapi-core';
import { splitEndpoint } from '../shared/endpoint.js';
import { EcsConfigError } from './errors.js';
import { EcsClientClass } from './sdk.js';

/** The SDK's client class (`@alicloud/ecs20140526` is CommonJS; its class is the `default` export). */
export type EcsClient = InstanceType<typeof EcsClientClass>;

/** Static or STS credentials. The SDK reads no environment by itself, so the fencer always passes them. */
export interface EcsCredentials {
  readonly accessKeyId: string;
  readonly accessKeySecret: string;
  /** Present for STS credentials (a RAM role's, e.g. Function Compute's). */
  readonly securityToken?: string;
}

/** Timeouts of every ECS call. Both must be set: httpx uses the connect timeout as the socket idle timeout too. */
export const ECS_CLIENT_DEFAULTS = {
  connectTimeout: 3_000,
  readTimeout: 10_000,
} as const;

/** What {@link createEcsClient} needs. */
export interface EcsClientProps {
  readonly region: string;
  readonly credentials: EcsCredentials;
  /**
   * `host[:port]` or a URL to talk to instead of `ecs.<region>.aliyuncs.com` (the lab's emulator, a VPC
   * endpoint). An `http://` URL switches the protocol to HTTP.
   * @default ECS's regional endpoint, over HTTPS
   */
  readonly endpoint?: string;
  readonly connectTimeoutMs?: number;
  readonly readTimeoutMs?: number;
}

const refuseEndpoint = (endpoint: string): EcsConfigError =>
  new EcsConfigError(`ECS endpoint ${JSON.stringify(endpoint)} is neither host[:port] nor an http(s) URL`);

/** Builds the ECS client the fencer uses when none is injected. */
export function createEcsClient(props: EcsClientProps): EcsClient {
  const { accessKeyId, accessKeySecret, securityToken } = props.credentials;
  if (!accessKeyId || !accessKeySecret) {
    throw new EcsConfigError('ECS credentials need both an AccessKey id and its secret');
  }
  const target = props.endpoint
    ? splitEndpoint(props.endpoint, refuseEndpoint)
    : { host: `ecs.${props.region}.aliyuncs.com`, protocol: 'https' as const };
  const config = new $OpenApiUtil.Config({
    accessKeyId,
    accessKeySecret,
    ...(securityToken ? { securityToken } : {}),
    regionId: props.region,
    endpoint: target.host,
    protocol: target.protocol,
    connectTimeout: props.connectTimeoutMs ?? ECS_CLIENT_DEFAULTS.connectTimeout,
    readTimeout: props.readTimeoutMs ?? ECS_CLIENT_DEFAULTS.readTimeout,
  });
  return new EcsClientClass(config);
}
