/**
 * Reads a kubeconfig kept as a secret on Alibaba Cloud: a KMS Secrets Manager secret (`GetSecretValue`)
 * or an OOS encrypted parameter (`GetSecretParameter` with decryption). Both are RPC calls of
 * Alibaba's generic OpenAPI client (`@alicloud/openapi-core`, which the ECS and Function Compute SDKs
 * are built on), signed with the function's role credentials: no service SDK is bundled for one call.
 */
import * as OpenApiCore from '@alicloud/openapi-core';
import { $OpenApiUtil, OpenApiUtil } from '@alicloud/openapi-core';
import { ProviderApiError, ValidationError } from '../../domain/errors.js';
import { type EndpointTarget, splitEndpoint } from '../shared/endpoint.js';

type OpenApiClass = typeof OpenApiCore.default.default;
const exported: unknown = OpenApiCore.default;
/** The generic client class, the same under every loader (the package is CommonJS). */
const OpenApiClient = (
  typeof exported === 'function' ? exported : (exported as { default: OpenApiClass }).default
) as OpenApiClass;

/** Where the secret is kept. */
export type SecretSource =
  | { readonly kind: 'kms-secret'; readonly name: string }
  | { readonly kind: 'oos-parameter'; readonly name: string };

export interface SecretReaderProps {
  readonly region: string;
  readonly credentials: {
    readonly accessKeyId: string;
    readonly accessKeySecret: string;
    readonly securityToken?: string;
  };
  /**
   * `host[:port]` or an `http(s)://` URL instead of the service's regional endpoint (a VPC endpoint such
   * as `kms-vpc.<region>.aliyuncs.com`, the lab's emulator).
   */
  readonly endpoint?: string;
}

const SERVICES = {
  'kms-secret': { host: 'kms', action: 'GetSecretValue', version: '2016-01-20' },
  'oos-parameter': { host: 'oos', action: 'GetSecretParameter', version: '2019-06-01' },
} as const;

const target = (props: SecretReaderProps, kind: SecretSource['kind']): EndpointTarget =>
  splitEndpoint(
    props.endpoint ?? `${SERVICES[kind].host}.${props.region}.aliyuncs.com`,
    (endpoint) =>
      new ValidationError(`secret endpoint ${JSON.stringify(endpoint)} is neither host[:port] nor a URL`),
  );

interface SecretAnswer {
  readonly SecretData?: string;
  readonly SecretDataType?: string;
  readonly Parameter?: { readonly Value?: string };
}

/** The secret's text; throws a ProviderApiError (retryable) or a ValidationError (empty, binary that is not text). */
export async function readSecret(props: SecretReaderProps, source: SecretSource): Promise<string> {
  const service = SERVICES[source.kind];
  const { protocol, host } = target(props, source.kind);
  const client = new OpenApiClient(
    new $OpenApiUtil.Config({
      ...props.credentials,
      regionId: props.region,
      endpoint: host,
      protocol,
      connectTimeout: 3_000,
      readTimeout: 10_000,
    }),
  );
  const query =
    source.kind === 'kms-secret'
      ? { SecretName: source.name }
      : { Name: source.name, WithDecryption: 'true', RegionId: props.region };
  let body: SecretAnswer;
  try {
    const answer = await client.callApi(
      new $OpenApiUtil.Params({
        action: service.action,
        version: service.version,
        protocol: protocol.toUpperCase(),
        pathname: '/',
        method: 'POST',
        authType: 'AK',
        style: 'RPC',
        reqBodyType: 'formData',
        bodyType: 'json',
      }),
      new $OpenApiUtil.OpenApiRequest({ query: OpenApiUtil.query(query) }),
      {} as Parameters<InstanceType<OpenApiClass>['callApi']>[2],
    );
    body = (answer as { body?: SecretAnswer }).body ?? {};
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).name;
    throw new ProviderApiError(
      `${service.action} ${source.name} failed: ${code}: ${(error as Error).message}`,
      {
        cause: error,
        operation: service.action,
        throttled: String(code).includes('Throttling'),
      },
    );
  }
  const raw = source.kind === 'kms-secret' ? body.SecretData : body.Parameter?.Value;
  if (!raw) throw new ValidationError(`${service.action} ${source.name}: the secret is empty`);
  return body.SecretDataType === 'binary' ? Buffer.from(raw, 'base64').toString('utf8') : raw;
}
