/**
 * The storage half of an observation: which of the node's volumes are network images, which storage
 * fencer serves them, and what the storage cluster lists for the node's addresses now.
 */
import { isNetworkImageDriver } from '../domain/blocklist.js';
import type { Fallible, ObservedNode, ObservedStorage, ProviderFault } from '../domain/observation.js';
import type { NodeView } from '../ports/cluster.js';
import type { StorageFencer } from '../ports/storage-fencer.js';
import type { FencerDeps } from './deps.js';

/** The storage fencer that isolates volumes of `driver`, if one is configured. */
export const storageFencerFor = (deps: FencerDeps, driver: string | null): StorageFencer | null =>
  driver === null ? null : (deps.storage?.find((f) => f.fencesVolume({ driver })) ?? null);

/** Whether a volume of `driver` is a network image (its lock is the node's client, not an attachment). */
export const isImage = (deps: FencerDeps, driver: string | null): boolean =>
  isNetworkImageDriver(driver) || storageFencerFor(deps, driver) !== null;

const internalIps = (addresses: readonly { readonly type: string; readonly address: string }[]): string[] =>
  addresses.filter((a) => a.type === 'InternalIP').map((a) => a.address);

const faultOf = (err: unknown): ProviderFault => {
  const e = err as Error & { fault?: unknown };
  return {
    name: e?.name ?? 'Error',
    message: e?.message ?? String(err),
    ...(typeof e?.fault === 'string' ? { code: e.fault } : {}),
  };
};

/**
 * The node's storage isolation as the storage cluster sees it now, or `null` when no configured storage
 * fencer serves any of `drivers` (the node's images, or those its fence record blocklisted).
 */
export async function observeStorage(
  deps: FencerDeps,
  node: ObservedNode,
  nodes: readonly NodeView[],
  drivers: readonly (string | null)[],
  signal: AbortSignal,
): Promise<ObservedStorage | null> {
  // A fence record's entries name no driver (`null`): the deployment's storage fencer lifts them.
  const fencer =
    drivers.map((d) => storageFencerFor(deps, d)).find((f) => f !== null) ??
    (drivers.includes(null) ? deps.storage?.[0] : undefined);
  if (!fencer) return null;
  const addresses = internalIps(node.addresses);
  const mine = new Set(addresses);
  const otherNodesSharingAddresses = nodes
    .filter((n) => n.name !== node.name && internalIps(n.addresses).some((a) => mine.has(a)))
    .map((n) => n.name)
    .sort();
  let blocklist: Fallible<Awaited<ReturnType<StorageFencer['verify']>>>;
  try {
    blocklist = { ok: true, value: await fencer.verify({ node: node.name, addresses }, { signal }) };
  } catch (err) {
    blocklist = { ok: false, error: faultOf(err) };
  }
  return { storage: fencer.storage, addresses, otherNodesSharingAddresses, blocklist };
}
