/**
 * Paginated lists for large clusters: each page is mapped to views as soon as it is parsed, so only
 * one raw page is alive at a time and memory does not grow with the cluster.
 */
import type { ApiClient } from './api/api-client.js';
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

/** Fetches list pages of any API path. */
export class RawLister {
  readonly #api: ApiClient;
  readonly #pageSize: number;

  constructor(api: ApiClient, pageSize: number) {
    this.#api = api;
    this.#pageSize = pageSize;
  }

  /** Every item under `path` (e.g. `/apis/storage.k8s.io/v1/volumeattachments`), mapped page by page. */
  list<T>(
    operation: string,
    path: string,
    query: Readonly<Record<string, string>>,
    map: (item: never) => T | undefined,
  ): Promise<T[]> {
    const page = (token: string | undefined): Promise<RawPage> =>
      this.#api.call({
        method: 'GET',
        path,
        query: { ...query, limit: String(this.#pageSize), continue: token },
      });
    return listMapped(operation, path, page, map);
  }
}
