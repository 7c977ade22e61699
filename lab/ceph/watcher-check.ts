/**
 * ceph-csi's check before it maps an RWO image on a node (NodeStage): list the image header's watchers
 * and refuse while there are any, with the error users see as a FailedMount event. Run from the node's
 * own namespace as its own cephx user, as the node plugin would.
 */
import type { Watcher } from './admin-client.js';
import { CephCliError, rbd } from './cli.js';

/** The outcome of the check. */
export type WatcherCheck =
  | { readonly inUse: false }
  | { readonly inUse: true; readonly watchers: readonly Watcher[]; readonly message: string }
  | { readonly inUse: 'unknown'; readonly message: string };

export interface WatcherCheckTarget {
  readonly conf: string;
  readonly netns: string;
  readonly node: string;
  readonly pool: string;
  readonly image: string;
}

/** `rbd status` as the node; `still being used` while any client watches the image. */
export async function checkWatchers(t: WatcherCheckTarget): Promise<WatcherCheck> {
  const spec = `${t.pool}/${t.image}`;
  try {
    const out = await rbd(t.conf, ['status', spec, '--id', t.node, '--format', 'json'], {
      netns: t.netns,
      timeoutMs: 20_000,
    });
    const listed = (JSON.parse(out) as { watchers?: { address: string; client: number; cookie: number }[] })
      .watchers;
    const watchers: Watcher[] = (listed ?? []).map((w) => ({
      addr: w.address,
      id: w.client,
      cookie: w.cookie,
    }));
    if (watchers.length === 0) return { inUse: false };
    return { inUse: true, watchers, message: `rbd image ${spec} is still being used` };
  } catch (error) {
    // A blocklisted node cannot even read the header (errno 108): the mount fails, differently.
    const detail = error instanceof CephCliError ? error.message : String(error);
    return { inUse: 'unknown', message: `rbd status ${spec} failed: ${detail}` };
  }
}
