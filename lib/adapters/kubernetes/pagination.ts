import { toKubernetesApiError } from './errors.js';

/** One page of a Kubernetes list. */
interface Page<T> {
  readonly items: T[];
  readonly metadata?: { readonly _continue?: string };
}

/**
 * Every item of a list, fetched `pageSize` at a time with `limit` and `continue`, so a large
 * cluster never needs one huge response. A continue token that expired mid-way (410) fails the
 * call: a list stitched from two versions of the cluster would not be an observation.
 */
export async function listAll<T>(
  operation: string,
  object: string,
  pageSize: number,
  fetchPage: (page: { limit: number; _continue?: string }) => Promise<Page<T>>,
): Promise<T[]> {
  const items: T[] = [];
  let token: string | undefined;
  try {
    do {
      const page = await fetchPage({ limit: pageSize, ...(token ? { _continue: token } : {}) });
      items.push(...page.items);
      token = page.metadata?._continue || undefined;
    } while (token);
  } catch (error) {
    throw toKubernetesApiError(operation, object, error);
  }
  return items;
}
