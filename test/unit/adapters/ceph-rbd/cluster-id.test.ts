/**
 * Which Ceph cluster a ceph-csi volume names (SAFETY.md rule 1: an image is proven only by its own
 * cluster's blocklist): the PersistentVolume's `clusterID` attribute, else the clusterID its handle
 * encodes. Handles as ceph-csi composes them: `<version>-<length of the clusterID, 4 hex>-<clusterID>-
 * <pool id, 16 hex>-<image uuid>`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cephCsiClusterOf, clusterIdOfHandle } from '../../../../lib/adapters/ceph-rbd/cluster-id.js';

const UUID = '6e696bba-064f-11ec-a251-0242ac110002';
const compose = (clusterId: string, pool = '0000000000000006') =>
  `0001-${clusterId.length.toString(16).padStart(4, '0')}-${clusterId}-${pool}-${UUID}`;

describe('the Ceph cluster of a ceph-csi volume', () => {
  it('reads the clusterID from a handle: an fsid, or a Rook namespace', () => {
    const fsid = '7635de36-ab1f-4a70-98a2-a1bd80ba77c4';
    expect(clusterIdOfHandle(`0001-0024-${fsid}-0000000000000006-${UUID}`)).toBe(fsid);
    expect(clusterIdOfHandle(compose('rook-ceph'))).toBe('rook-ceph');
  });

  it('finds any clusterID ceph-csi may encode, dashes and all', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9._-]{1,128}$/), (clusterId) => {
        expect(clusterIdOfHandle(compose(clusterId))).toBe(clusterId);
      }),
      { numRuns: 300 },
    );
  });

  it('names no cluster for a handle whose length does not match, or that is no ceph-csi handle', () => {
    expect(clusterIdOfHandle(`0001-0005-rook-ceph-0000000000000006-${UUID}`)).toBeUndefined();
    expect(clusterIdOfHandle('vol-0123456789abcdef0')).toBeUndefined();
    expect(clusterIdOfHandle(`0001-0009-rook-ceph-00000006-${UUID}`)).toBeUndefined();
    expect(clusterIdOfHandle('')).toBeUndefined();
  });

  it("prefers the PersistentVolume's clusterID attribute to the handle", () => {
    expect(cephCsiClusterOf({ attributes: { clusterID: 'a' }, handle: compose('b') })).toBe('a');
    expect(cephCsiClusterOf({ attributes: { pool: 'rbd' }, handle: compose('b') })).toBe('b');
    expect(cephCsiClusterOf({ attributes: { pool: 'rbd' } })).toBeUndefined();
  });
});
