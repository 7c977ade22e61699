/**
 * Which Ceph cluster a ceph-csi volume lives on, as ceph-csi names it: `clusterID` in the
 * PersistentVolume's `spec.csi.volumeAttributes`, or, for a volume known only by its handle (a kubelet's
 * `status.volumesInUse`), the clusterID ceph-csi encodes in the handle itself:
 * `<version: 4 hex>-<length of the clusterID: 4 hex>-<clusterID>-<pool id: 16 hex>-<image uuid>`.
 */

const HANDLE = /^([0-9a-f]{4})-([0-9a-f]{4})-(.+)-([0-9a-f]{16})-([0-9a-f-]{36})$/;

/** The clusterID a ceph-csi volume handle encodes, or `undefined` when it is not such a handle. */
export function clusterIdOfHandle(handle: string): string | undefined {
  const match = HANDLE.exec(handle);
  if (!match) return undefined;
  const [, , length, clusterId] = match;
  return clusterId !== undefined && clusterId.length === Number.parseInt(length ?? '', 16)
    ? clusterId
    : undefined;
}

/** The clusterID a volume names: its attributes first, else its handle. */
export const cephCsiClusterOf = (volume: {
  readonly attributes?: Readonly<Record<string, string>>;
  readonly handle?: string;
}): string | undefined =>
  volume.attributes?.clusterID ??
  (volume.handle === undefined ? undefined : clusterIdOfHandle(volume.handle));
