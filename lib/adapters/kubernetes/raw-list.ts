/**
 * Lean paginated lists for large clusters. The generated client deserialises every field of every
 * object into model classes before the adapter keeps a handful of them; for tens of thousands of
 * objects that costs seconds and hundreds of megabytes. Here each page is parsed as plain JSON and
 * mapped to views at once, so only one raw page is alive at a time. Same auth and TLS as the client.
 */
import {
  ApiException,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  type KubeConfig,
  RequestContext,
} from '@kubernetes/client-node';
import { toKubernetesApiError } from './errors.js';

/** One page of a list, as JSON. */
export interface RawPage {
  readonly items?: readonly unknown[];
  readonly metadata?: { readonly continue?: string };
}

/**
 * Every item of a paginated list, mapped page by page; items `map` returns `undefined` for are
 * dropped. A continue token that expired mid-way (410) fails the call: a list stitched from two
 * versions of the cluster would not be an observation.
 */
export async function listMapped<T>(
  operation: string,
  object: string,
  fetchPage: (token: string | undefined) => Promise<RawPage>,
  map: (item: never) => T | undefined,
): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  try {
    do {
      const page = await fetchPage(token);
      for (const item of page.items ?? []) {
        const view = map(item as never);
        if (view !== undefined) out.push(view);
      }
      token = page.metadata?.continue || undefined;
    } while (token);
  } catch (error) {
    throw toKubernetesApiError(operation, object, error);
  }
  return out;
}

/** Fetches list pages of any API path with the kubeconfig's credentials. */
export class RawLister {
  readonly #kubeConfig: KubeConfig;
  readonly #pageSize: number;
  readonly #http = new IsomorphicFetchHttpLibrary();

  constructor(kubeConfig: KubeConfig, pageSize: number) {
    this.#kubeConfig = kubeConfig;
    this.#pageSize = pageSize;
  }

  /** Every item under `path` (e.g. `/apis/storage.k8s.io/v1/volumeattachments`), mapped page by page. */
  list<T>(
    operation: string,
    path: string,
    query: Readonly<Record<string, string>>,
    map: (item: never) => T | undefined,
  ): Promise<T[]> {
    return listMapped(operation, path, (token) => this.#page(path, query, token), map);
  }

  async #page(
    path: string,
    query: Readonly<Record<string, string>>,
    token: string | undefined,
  ): Promise<RawPage> {
    const server = this.#kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new Error('no current cluster in the kubeconfig');
    const params = new URLSearchParams({ ...query, limit: String(this.#pageSize) });
    if (token) params.set('continue', token);
    const context = new RequestContext(`${server.replace(/\/+$/, '')}${path}?${params}`, HttpMethod.GET);
    context.setHeaderParam('Accept', 'application/json');
    await this.#kubeConfig.applySecurityAuthentication(context);
    const response = await this.#http.send(context).toPromise();
    const text = await response.body.text();
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
      throw new ApiException(
        response.httpStatusCode,
        `HTTP ${response.httpStatusCode}`,
        text,
        response.headers,
      );
    }
    return JSON.parse(text) as RawPage;
  }
}
