/**
 * The endpoint setting of the Alibaba Cloud OpenAPI clients (ECS, Function Compute, KMS, OOS): a
 * `host[:port]`, reached over HTTPS, or an `http(s)://` URL without a path (a VPC endpoint, the lab's
 * emulators), split as the SDK's Config takes it.
 */
export interface OpenApiTarget {
  readonly host: string;
  readonly protocol: 'http' | 'https';
}

/** `endpoint` as a target, or `undefined` when it is neither form (each client words its own error). */
export function parseOpenApiEndpoint(endpoint: string): OpenApiTarget | undefined {
  const url = /^(https?):\/\/([^/]+)\/?$/.exec(endpoint);
  if (url) return { protocol: url[1] as OpenApiTarget['protocol'], host: url[2] ?? '' };
  if (/^[A-Za-z0-9.-]+(?::\d+)?$/.test(endpoint)) return { protocol: 'https', host: endpoint };
  return undefined;
}
