/**
 * Paginated lists for large clusters: each page is mapped to views as soon as it is parsed, so only
 * one raw page is alive at a time and memory grows with the compact views, not with the answers.
 */
import type { ApiCall, ApiClient } from './api/api-client.js';
import { decodeListPage, PROTOBUF_CONTENT_TYPE, type ProtobufListKind } from './api/protobuf.js';
import { toKubernetesApiError } from './errors.js';

/** One page of a list, as JSON, or decoded from protobuf into the same shape. */
export interface RawPage {
  readonly items?: Iterable<unknown>;
  readonly metadata?: { readonly continue?: string };
}

/**
 * Where a list is served from.
 * - `Consistent` (no resourceVersion): as recent as etcd, page by page with `limit`/`continue`. Every
 *   read a decision depends on is consistent. Since Kubernetes 1.31 the API server answers it from its
 *   watch cache once the cache has caught up with etcd, so it is cheap as well as exact.
 * - `Cached` (`resourceVersion=0`): whatever the watch cache holds, possibly a little stale. The watch
 *   cache ignores `limit` for such a read (Kubernetes 1.36 still answers every item in one response),
 *   so it is only for compact representations (a Table without objects) whose whole answer is small.
 */
export const ReadConsistency = { Consistent: 'consistent', Cached: 'cached' } as const;
export type ReadConsistency = (typeof ReadConsistency)[keyof typeof ReadConsistency];

/** How a list is asked for, beyond its path and selectors. */
export interface ListOptions {
  /** @default ReadConsistency.Consistent */
  readonly consistency?: ReadConsistency;
  /** The representation (`Accept`), e.g. a server-side Table. @default JSON objects */
  readonly accept?: string;
  /** Items per page, for representations much smaller than objects. @default the lister's page size */
  readonly pageSize?: number;
  /**
   * Ask for Kubernetes' protobuf encoding and decode this list kind's items (JSON still accepted, for a
   * server or proxy that does not offer it). For the largest lists: see api/protobuf.ts.
   */
  readonly protobuf?: ProtobufListKind;
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
    options: ListOptions = {},
  ): Promise<T[]> {
    return listMapped(operation, path, (token) => this.page(path, query, token, options), map);
  }

  /** One page: the first carries the consistency; a continue token already pins the version. */
  page<P extends RawPage>(
    path: string,
    query: Readonly<Record<string, string>>,
    token: string | undefined,
    options: ListOptions = {},
  ): Promise<P> {
    const cached = options.consistency === ReadConsistency.Cached && token === undefined;
    const call = {
      method: 'GET',
      path,
      query: {
        ...query,
        limit: String(options.pageSize ?? this.#pageSize),
        continue: token,
        resourceVersion: cached ? '0' : undefined,
      },
      ...(options.accept ? { accept: options.accept } : {}),
    } as const;
    return options.protobuf ? this.#protobufPage<P>(call, options.protobuf) : this.#api.call<P>(call);
  }

  async #protobufPage<P extends RawPage>(call: ApiCall, kind: ProtobufListKind): Promise<P> {
    const answer = await this.#api.callRaw({ ...call, accept: `${PROTOBUF_CONTENT_TYPE}, application/json` });
    return (
      answer.contentType.startsWith(PROTOBUF_CONTENT_TYPE)
        ? decodeListPage(kind, answer.body)
        : JSON.parse(answer.body.toString('utf8'))
    ) as P;
  }
}
