/**
 * The Node watch behind lib/ports/node-changes.ts: one list for the starting version, then a watch that
 * is resumed from the last version it saw whenever the server or the network closes it. An expired
 * version (410 Gone) starts over from a fresh list and says that changes may have been missed.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { NodeChange } from '../../ports/node-changes.js';
import type { ApiClient } from './api/api-client.js';
import { apiPaths } from './api/paths.js';
import { statusOf, toKubernetesApiError } from './errors.js';
import type { KubeClusterLogger } from './logger.js';
import { toNodeView } from './views.js';

/** Pause before resuming a closed watch. */
const RESUME_DELAY_MS = 500;
/** The server ends each watch after this long (it is resumed): a dead connection is noticed by then. */
const WATCH_SECONDS = '300';

interface RawNode {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string };
}

async function listVersion(api: ApiClient): Promise<string> {
  try {
    const list = await api.call<{ metadata?: { resourceVersion?: string } }>({
      method: 'GET',
      path: apiPaths.nodes,
      query: { limit: '1' },
    });
    return list.metadata?.resourceVersion ?? '';
  } catch (error) {
    throw toKubernetesApiError('list (to start watching)', 'nodes', error);
  }
}

/** How one watch ended: the version it reached, whether that version expired, and the error if any. */
interface WatchEnd {
  readonly version: string;
  readonly gone: boolean;
  readonly error?: unknown;
}

/** One watch of the Nodes from `from`, until the server or the network closes it, or `signal`. */
function watchOnce(
  api: ApiClient,
  from: string,
  onChange: (change: NodeChange) => void,
  signal: AbortSignal,
): Promise<WatchEnd> {
  let version = from;
  // The server says an expired version in the stream (an ERROR event carrying a 410 Status), then closes.
  let expired = false;
  return new Promise<WatchEnd>((resolve) => {
    let stop: (() => void) | undefined;
    const finish = (end: Omit<WatchEnd, 'version'>): void => {
      signal.removeEventListener('abort', onAbort);
      resolve({ version, ...end });
    };
    const onAbort = (): void => {
      stop?.();
      finish({ gone: false });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const onEvent = (type: string, raw: unknown): void => {
      const node = raw as RawNode | undefined;
      if (node?.metadata?.resourceVersion) version = node.metadata.resourceVersion;
      if (type === 'ERROR') expired ||= (raw as { code?: number } | undefined)?.code === 410;
      else if ((type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') && node?.metadata?.name) {
        onChange({ type, node: toNodeView(raw as V1Node) });
      }
    };
    const onClose = (error?: unknown): void => {
      const status = statusOf(error);
      if (status === 410 || expired) finish({ gone: true });
      else finish(status === undefined ? { gone: false } : { gone: false, error });
    };
    const query = { resourceVersion: from, allowWatchBookmarks: 'true', timeoutSeconds: WATCH_SECONDS };
    api.watch(apiPaths.nodes, query, onEvent, onClose).then(
      (s) => {
        stop = s;
        if (signal.aborted) s();
      },
      (error: unknown) => finish({ gone: false, error }),
    );
  });
}

export async function followNodes(
  api: ApiClient,
  logger: KubeClusterLogger,
  onChange: (change: NodeChange | null) => void,
  signal: AbortSignal,
): Promise<void> {
  let version = await listVersion(api);
  while (!signal.aborted) {
    const ended = await watchOnce(api, version, onChange, signal);
    version = ended.version;
    if (signal.aborted) return;
    if (ended.error !== undefined) {
      const status = statusOf(ended.error);
      if (status === 401 || status === 403) throw toKubernetesApiError('watch', 'nodes', ended.error);
      logger.debug('node watch failed; resuming', { error: String(ended.error) });
    }
    if (ended.gone) {
      version = await listVersion(api);
      onChange(null);
    }
    await new Promise((r) => setTimeout(r, RESUME_DELAY_MS));
  }
}
