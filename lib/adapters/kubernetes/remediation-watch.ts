/**
 * Waking a reconcile on the first change to a collection (the KubeFencerRemediations): a list of one
 * item for the collection's version, then a watch from it. Any event but a bookmark is a change; a
 * watch the server closed, or an expired version (410), reads as one too, since the caller lists
 * everything again anyway and a missed change would cost it a whole timeout.
 */
import type { ApiClient } from './api/api-client.js';
import { statusOf, toKubernetesApiError } from './errors.js';

/** The collection's current version: what the watch starts after. */
async function versionOf(api: ApiClient, path: string): Promise<string> {
  try {
    const list = await api.call<{ metadata?: { resourceVersion?: string } }>({
      method: 'GET',
      path,
      query: { limit: '1' },
    });
    return list.metadata?.resourceVersion ?? '';
  } catch (error) {
    throw toKubernetesApiError('list (to start watching)', path, error);
  }
}

/** Watches `path` from `version`, calling `end` once with how the wait ends; returns the watch's stop. */
function watchFrom(
  api: ApiClient,
  path: string,
  query: Readonly<Record<string, string>>,
  end: (outcome: 'changed' | Error) => void,
): Promise<() => void> {
  return api.watch(
    path,
    query,
    (type) => {
      if (type !== 'BOOKMARK') end('changed');
    },
    (error) => {
      const status = statusOf(error);
      end(status !== undefined && status !== 410 ? toKubernetesApiError('watch', path, error) : 'changed');
    },
  );
}

export async function waitForCollectionChange(
  api: ApiClient,
  path: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<'changed' | 'timeout'> {
  signal?.throwIfAborted();
  if (timeoutMs <= 0) return 'timeout';
  const resourceVersion = await versionOf(api, path);
  return new Promise((resolve, reject) => {
    let stop: (() => void) | undefined;
    let ended = false;
    const end = (outcome: unknown): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      stop?.();
      if (outcome === 'changed' || outcome === 'timeout') resolve(outcome);
      else reject(outcome);
    };
    const onAbort = (): void => end(signal?.reason);
    const timer = setTimeout(() => end('timeout'), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    const query = {
      resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(Math.ceil(timeoutMs / 1000) + 5),
    };
    watchFrom(api, path, query, end).then(
      (stopWatch) => {
        stop = stopWatch;
        if (ended) stopWatch();
      },
      (error: unknown) => end(toKubernetesApiError('watch', path, error)),
    );
  });
}
