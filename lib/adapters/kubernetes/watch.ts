import type { ApiClient } from './api/api-client.js';
import { apiPaths } from './api/paths.js';
import { serverMessage, statusOf, toKubernetesApiError } from './errors.js';
import type { KubeClusterLogger } from './logger.js';

/** One watched collection: where, which objects, and the version to start after. */
interface WatchTarget {
  readonly describe: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** Client-side filter where the API has no field selector (VolumeAttachments by node). */
  readonly matches?: (object: RawObject) => boolean;
  /** The version of a list taken just before: the watch delivers only what happens after it. */
  readonly resourceVersion: string;
}

/** Watch events carry raw JSON, not client-node models. */
interface RawObject {
  readonly metadata?: { readonly resourceVersion?: string };
  readonly spec?: { readonly nodeName?: string };
}

/** Pause before resuming a watch the server or the network closed. */
const RESUME_DELAY_MS = 500;

/** What {@link waitForNodeChange} lists and watches with. */
export interface WatchApis {
  readonly api: ApiClient;
  readonly logger: KubeClusterLogger;
}

/** Lists one item of each collection: only the list's resourceVersion is wanted. */
async function targetsFor(apis: WatchApis, node: string): Promise<WatchTarget[]> {
  const nodeQuery = { fieldSelector: `metadata.name=${node}` };
  const podQuery = { fieldSelector: `spec.nodeName=${node}` };
  const versionOf = (list: { metadata?: { resourceVersion?: string } }): string =>
    list.metadata?.resourceVersion ?? '';
  const listOne = (path: string, query: Readonly<Record<string, string>>) =>
    apis.api.call<{ metadata?: { resourceVersion?: string } }>({
      method: 'GET',
      path,
      query: { ...query, limit: '1' },
    });
  const [nodes, pods, attachments] = await Promise.all([
    listOne(apiPaths.nodes, nodeQuery),
    listOne(apiPaths.pods, podQuery),
    listOne(apiPaths.volumeAttachments, {}),
  ]).catch((error: unknown) => {
    throw toKubernetesApiError('list (to start watching)', `node/${node}`, error);
  });
  return [
    { describe: `node/${node}`, path: apiPaths.nodes, query: nodeQuery, resourceVersion: versionOf(nodes) },
    { describe: `pods on ${node}`, path: apiPaths.pods, query: podQuery, resourceVersion: versionOf(pods) },
    {
      describe: `volumeattachments of ${node}`,
      path: apiPaths.volumeAttachments,
      query: {},
      matches: (object) => object.spec?.nodeName === node,
      resourceVersion: versionOf(attachments),
    },
  ];
}

/**
 * How one wait ends: once, by whichever comes first (a change, the timeout, an abort, a refused watch).
 * Ending it runs every closer registered so far (the timer, the abort listener, the open watches).
 */
class WaitOutcome {
  #ended = false;
  readonly #closers: (() => void)[] = [];
  readonly #resolve: (outcome: 'changed' | 'timeout') => void;
  readonly #reject: (reason: unknown) => void;

  constructor(resolve: (outcome: 'changed' | 'timeout') => void, reject: (reason: unknown) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Runs `close` when the wait ends, or at once if it has ended already. */
  onEnd(close: () => void): void {
    if (this.#ended) close();
    else this.#closers.push(close);
  }

  resolve(outcome: 'changed' | 'timeout'): void {
    this.#end(() => this.#resolve(outcome));
  }

  reject(reason: unknown): void {
    this.#end(() => this.#reject(reason));
  }

  #end(finish: () => void): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const close of this.#closers) close();
    finish();
  }
}

/** What the watches of one wait share. */
interface WatchSession {
  readonly apis: WatchApis;
  /** Lets the API server end the watches too, should this process vanish without closing them. */
  readonly serverTimeoutSeconds: string;
  readonly outcome: WaitOutcome;
}

/** Follows one target from `from`; a watch that cannot be opened ends the wait with its error. */
function startWatch(session: WatchSession, target: WatchTarget, from: string): void {
  if (session.outcome.ended) return;
  followWatch(session, target, from).catch((error: unknown) => {
    const failure = toKubernetesApiError('watch', target.describe, error);
    session.outcome.reject(failure);
  });
}

/**
 * Watches one target: a change ends the wait, bookmarks and objects of other nodes only move the
 * version on, and a watch the server or the network closed is resumed from the last version seen.
 */
async function followWatch(session: WatchSession, target: WatchTarget, from: string): Promise<void> {
  const { apis, outcome } = session;
  let resourceVersion = from;
  const stop = await apis.api.watch(
    target.path,
    {
      ...target.query,
      resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: session.serverTimeoutSeconds,
    },
    (type, raw) => {
      if (outcome.ended) return;
      const object = raw as RawObject | undefined;
      const version = object?.metadata?.resourceVersion;
      if (type === 'BOOKMARK' || (target.matches && object && !target.matches(object))) {
        if (version) resourceVersion = version;
        return;
      }
      // ADDED, MODIFIED, DELETED, or ERROR (e.g. 410 Gone: events may have been missed).
      outcome.resolve('changed');
    },
    (error: unknown) => {
      if (outcome.ended) return;
      const status = statusOf(error);
      if (status === 410) return outcome.resolve('changed');
      if (status !== undefined) return outcome.reject(toKubernetesApiError('watch', target.describe, error));
      // Closed by the server (its timeoutSeconds) or the network: resume.
      apis.logger.debug('watch closed; resuming', {
        watch: target.describe,
        resourceVersion,
        ...(error ? { error: serverMessage(error) } : {}),
      });
      setTimeout(() => startWatch(session, target, resourceVersion), RESUME_DELAY_MS).unref();
    },
  );
  outcome.onEnd(stop);
}

/**
 * Resolves 'changed' on the first change to `node`, its pods or its VolumeAttachments after the
 * call, and 'timeout' after `timeoutMs`; every watch is closed either way. Rejects with the
 * signal's reason when `signal` aborts, and with a `KubernetesApiError` when a watch is refused
 * (e.g. RBAC). A wake-up may be spurious (an expired resourceVersion reads as 'changed'): the
 * caller re-observes anyway, and a missed change would only cost a full timeout.
 */
export async function waitForNodeChange(
  apis: WatchApis,
  node: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<'changed' | 'timeout'> {
  signal?.throwIfAborted();
  if (timeoutMs <= 0) return 'timeout';
  const targets = await targetsFor(apis, node);
  signal?.throwIfAborted();
  const serverTimeoutSeconds = String(Math.ceil(timeoutMs / 1000) + 5);

  return new Promise((resolve, reject) => {
    const outcome = new WaitOutcome(resolve, reject);
    const timer = setTimeout(() => outcome.resolve('timeout'), timeoutMs);
    const onAbort = (): void => outcome.reject(signal?.reason);
    outcome.onEnd(() => clearTimeout(timer));
    outcome.onEnd(() => signal?.removeEventListener('abort', onAbort));
    signal?.addEventListener('abort', onAbort, { once: true });
    const session: WatchSession = { apis, serverTimeoutSeconds, outcome };
    for (const target of targets) startWatch(session, target, target.resourceVersion);
  });
}
