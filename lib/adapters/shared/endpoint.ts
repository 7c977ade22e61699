/**
 * The endpoint setting of the Alibaba Cloud clients (ECS, Function Compute, KMS and OOS): `host[:port]`
 * or an `http(s)://` URL, for a VPC endpoint or the lab's emulator. Read one way for every client, so a
 * value one of them accepts is accepted by all.
 */

/** Where a client sends its requests: the host (with its port, if any) and the protocol to speak. */
export interface EndpointTarget {
  readonly host: string;
  readonly protocol: 'http' | 'https';
}

const URL_ENDPOINT = /^(https?):\/\/([^/]+)\/?$/;
const HOST_AND_PORT = /^[A-Za-z0-9.-]+(?::\d+)?$/;

/**
 * Splits an endpoint setting into host and protocol: `host[:port]` is spoken over HTTPS, a URL (nothing
 * after its host but an optional `/`) over its own scheme. Anything else throws the error `refuse`
 * makes, so each client refuses it in its own words.
 */
export function splitEndpoint(endpoint: string, refuse: (endpoint: string) => Error): EndpointTarget {
  const url = URL_ENDPOINT.exec(endpoint);
  if (url) return { protocol: url[1] as EndpointTarget['protocol'], host: url[2] ?? '' };
  if (HOST_AND_PORT.test(endpoint)) return { protocol: 'https', host: endpoint };
  throw refuse(endpoint);
}
