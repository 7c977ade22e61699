/**
 * The storage half of an observation: which of the node's volumes are network images, which storage
 * fencer serves them, and what the storage cluster lists for the node's addresses now.
 */
import { isNetworkImageDriver } from '../../domain/blocklist.js';
import type {
  Fallible,
  HolderEvidence,
  ImageHolder,
  ObservedNode,
  ObservedStorage,
  ObservedVolumeAttachment,
  ObservedWorkload,
} from '../../domain/observation.js';
import { holdersCoveredBy } from '../../domain/rules/storage-witness.js';
import {
  parseStorageAddresses,
  ScopeConflictKind,
  STORAGE_ADDRESSES_ANNOTATION,
  scopeConflicts,
} from '../../domain/storage-scope.js';
import type { NodeView } from '../../ports/cluster.js';
import type {
  StorageDaemons,
  StorageFencer,
  StorageImageRef,
  StorageWitness,
} from '../../ports/storage-fencer.js';
import type { FencerDeps } from '../shared/deps.js';
import { storageFaultOf } from '../shared/faults.js';

/** The storage fencer that isolates volumes of `driver`, if one is configured. */
export const storageFencerFor = (deps: FencerDeps, driver: string | null): StorageFencer | null =>
  driver === null ? null : (deps.storage?.find((f) => f.fencesVolume({ driver })) ?? null);

/** Whether a volume of `driver` is a network image (its lock is the node's client, not an attachment). */
export const isImage = (deps: FencerDeps, driver: string | null): boolean =>
  isNetworkImageDriver(driver) || storageFencerFor(deps, driver) !== null;

/**
 * The workload with each network image placed on its storage cluster, where a fencer is told which
 * clusters it reaches: an attachment whose PersistentVolume names another cluster (or none) is marked
 * `unservedCluster`, and an image the kubelet reported in use on another cluster moves from
 * `imagesInUse` to `unservedImagesInUse`. Such an image is never proven by this fencer's blocklist.
 */
export async function placeImagesOnClusters(
  deps: FencerDeps,
  workload: ObservedWorkload,
): Promise<ObservedWorkload> {
  const clusterOfVolume = async (va: ObservedVolumeAttachment, fencer: StorageFencer) => {
    const pv = va.persistentVolume ? await deps.cluster.getPersistentVolume(va.persistentVolume) : null;
    if (pv === null) return undefined;
    return fencer.storageClusterOf({
      ...(pv.attributes ? { attributes: pv.attributes } : {}),
      ...(pv.volumeHandle ? { handle: pv.volumeHandle } : {}),
    });
  };
  const volumeAttachments: ObservedVolumeAttachment[] = [];
  for (const va of workload.volumeAttachments) {
    const fencer = va.image ? storageFencerFor(deps, va.attacher) : null;
    const served = fencer?.storageClusters;
    if (!fencer || !served) {
      volumeAttachments.push(va);
      continue;
    }
    const cluster = await clusterOfVolume(va, fencer);
    volumeAttachments.push(
      cluster !== undefined && served.includes(cluster)
        ? va
        : { ...va, unservedCluster: cluster ?? 'unknown' },
    );
  }
  const inUse: string[] = [];
  const elsewhere: string[] = [];
  for (const unique of workload.imagesInUse ?? []) {
    const { driver, handle } = csiVolumeOf(unique);
    const fencer = storageFencerFor(deps, driver);
    const served = fencer?.storageClusters;
    const cluster = served && handle !== null ? fencer.storageClusterOf({ handle }) : undefined;
    if (!served || (cluster !== undefined && served.includes(cluster))) inUse.push(unique);
    else elsewhere.push(unique);
  }
  return {
    ...workload,
    volumeAttachments,
    ...(workload.imagesInUse ? { imagesInUse: inUse } : {}),
    ...(elsewhere.length > 0 ? { unservedImagesInUse: elsewhere } : {}),
  };
}

/** A volume's unique name (`kubernetes.io/csi/<driver>^<handle>`) as its driver and handle. */
export function csiVolumeOf(uniqueName: string): { driver: string | null; handle: string | null } {
  const match = /^kubernetes\.io\/csi\/([^^]+)\^(.+)$/.exec(uniqueName);
  return { driver: match?.[1] ?? null, handle: match?.[2] ?? null };
}

const internalIps = (addresses: readonly { readonly type: string; readonly address: string }[]): string[] =>
  addresses.filter((a) => a.type === 'InternalIP').map((a) => a.address);

/** The node's declared storage addresses: absent is none; malformed is an error and none. */
function declaredOf(view: NodeView | undefined): { declared: string[]; declaredError: string | null } {
  const value = view?.annotations[STORAGE_ADDRESSES_ANNOTATION];
  if (value === undefined) return { declared: [], declaredError: null };
  const parsed = parseStorageAddresses(value);
  return parsed.ok
    ? { declared: parsed.entries, declaredError: null }
    : { declared: [], declaredError: parsed.error };
}

/**
 * The storage fencer serving the first of `drivers` that one serves. A fence record's entries name no
 * driver (`null`): the deployment's storage fencer lifts them.
 */
const storageFencerOfDrivers = (
  deps: FencerDeps,
  drivers: readonly (string | null)[],
): StorageFencer | undefined =>
  drivers.map((d) => storageFencerFor(deps, d)).find((f) => f !== null) ??
  (drivers.includes(null) ? deps.storage?.[0] : undefined);

/** What the storage cluster lists for the node now, and the addresses of its own daemons. */
async function readBlocklist(
  fencer: StorageFencer,
  target: Parameters<StorageFencer['verify']>[0],
  signal: AbortSignal,
): Promise<{ blocklist: ObservedStorage['blocklist']; daemons: StorageDaemons }> {
  try {
    // Both reads must succeed: without the daemons' addresses nothing shows the fence spares them.
    // One after the other: the storage API may serve one request at a time.
    const evidence = await fencer.verify(target, { signal });
    const daemons = await fencer.storageDaemons({ signal });
    return { blocklist: { ok: true, value: evidence }, daemons };
  } catch (err) {
    return {
      blocklist: { ok: false, error: storageFaultOf(err) },
      daemons: { source: 'not read', daemons: [] },
    };
  }
}

/** The other Nodes that share an address with what would be blocklisted, by name. */
const otherNodesIn = (conflicts: ReturnType<typeof scopeConflicts>): string[] =>
  [...new Set(conflicts.filter((c) => c.kind === ScopeConflictKind.OtherNode).map((c) => c.party))].sort();

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
  imageVolumes: readonly string[] = [],
  alreadyWitnessed: readonly string[] = [],
  imagesInUse: readonly string[] = [],
): Promise<ObservedStorage | null> {
  const fencer = storageFencerOfDrivers(deps, drivers);
  if (!fencer) return null;
  const addresses = internalIps(node.addresses);
  const { declared, declaredError } = declaredOf(nodes.find((n) => n.name === node.name));
  const others = nodes
    .filter((n) => n.name !== node.name)
    .map((n) => ({ name: n.name, addresses: n.addresses.map((a) => a.address) }));
  const read = fencer.witness
    ? await readHolders(deps, fencer.witness, imageVolumes, imagesInUse, signal)
    : undefined;
  const holders = read?.holders;
  const unwitnessed = read?.unwitnessed ?? [];
  const seen = holders?.ok ? unaccounted(holders.value.holders, [...addresses, ...declared], others) : [];
  const witnessed = [...new Set([...alreadyWitnessed, ...seen])].sort();
  const target = { node: node.name, addresses, declared, ...(witnessed.length > 0 ? { witnessed } : {}) };
  const { blocklist, daemons } = await readBlocklist(fencer, target, signal);
  // What would be blocklisted: the fencer's plan when it answered, else the node's own addresses.
  const entries = blocklist.ok
    ? blocklist.value.expected.map((e) => e.entry)
    : [...addresses, ...declared, ...witnessed];
  const conflicts = scopeConflicts(entries, others, daemons.daemons);
  return {
    storage: fencer.storage,
    addresses,
    declared,
    declaredError,
    otherNodesSharingAddresses: otherNodesIn(conflicts),
    conflicts,
    blocklist,
    ...(holders ? { holders } : {}),
    ...(unwitnessed.length > 0 ? { unwitnessed } : {}),
    ...(holders || witnessed.length > 0 ? { witnessed } : {}),
  };
}

const uniqueNameOf = (pv: { readonly driver?: string; readonly volumeHandle?: string }): string | null =>
  pv.driver && pv.volumeHandle ? `kubernetes.io/csi/${pv.driver}^${pv.volumeHandle}` : null;

/**
 * The PersistentVolumes behind images the kubelet reports in use that no attachment accounts for (a
 * node tainted by hand, whose attachments are gone): found by their driver and handle in one list of
 * PersistentVolumes, read only when such an image exists. The rest name no PersistentVolume any more.
 */
async function volumesOfImagesInUse(
  deps: FencerDeps,
  inUse: readonly string[],
): Promise<{ readonly volumes: string[]; readonly unfound: string[] }> {
  if (inUse.length === 0) return { volumes: [], unfound: [] };
  const byUniqueName = new Map<string, string>();
  for (const pv of await deps.cluster.listPersistentVolumes()) {
    const unique = uniqueNameOf(pv);
    if (unique !== null) byUniqueName.set(unique, pv.name);
  }
  const volumes = inUse.flatMap((u) => byUniqueName.get(u) ?? []);
  return { volumes, unfound: inUse.filter((u) => !byUniqueName.has(u)) };
}

/**
 * The holders of the node's images, by the storage cluster's witness. The images are named by the
 * PersistentVolumes of the node's image attachments; one that names no image it can read fails the
 * reading (a partial answer is not evidence).
 */
async function readHolders(
  deps: FencerDeps,
  witness: StorageWitness,
  volumes: readonly string[],
  imagesInUse: readonly string[],
  signal: AbortSignal,
): Promise<{ readonly holders: Fallible<HolderEvidence>; readonly unwitnessed?: readonly string[] }> {
  try {
    const refs: StorageImageRef[] = [];
    const read = new Set<string>();
    const readVolume = async (name: string): Promise<void> => {
      const pv = await deps.cluster.getPersistentVolume(name);
      const ref = pv?.attributes ? witness.imageOf(pv.attributes) : null;
      if (pv === null) return; // deleted since: nothing of it is left to hold
      if (ref === null) throw new Error(`PersistentVolume ${name} names no image the witness can read`);
      const unique = uniqueNameOf(pv);
      if (unique !== null) read.add(unique);
      refs.push(ref);
    };
    for (const name of [...new Set(volumes)].sort()) await readVolume(name);
    // An image the kubelet reports in use and no attachment names is read too, by its PersistentVolume.
    const extra = await volumesOfImagesInUse(
      deps,
      imagesInUse.filter((u) => !read.has(u)),
    );
    for (const name of extra.volumes.filter((v) => !volumes.includes(v)).sort()) await readVolume(name);
    return {
      holders: { ok: true, value: await witness.holders(refs, { signal }) },
      ...(extra.unfound.length > 0 ? { unwitnessed: extra.unfound } : {}),
    };
  } catch (err) {
    return { holders: { ok: false, error: storageFaultOf(err) } };
  }
}

/** Holder addresses that neither the node's own entries nor another Node's addresses account for. */
function unaccounted(
  holders: readonly ImageHolder[],
  own: readonly string[],
  others: readonly { readonly addresses: readonly string[] }[],
): string[] {
  const accounted = [...own, ...others.flatMap((o) => o.addresses)];
  const covered = new Set(holdersCoveredBy(holders, accounted).map((h) => h.address));
  return [...new Set(holders.map((h) => h.address).filter((a) => !covered.has(a)))].sort();
}
