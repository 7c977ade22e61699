/**
 * Which CSI drivers attach network images (Ceph RBD): their VolumeAttachments need the storage fence
 * (SAFETY.md rule 1), every other driver's need the machine off.
 */
import { describe, expect, it } from 'vitest';
import { isNetworkImageDriver } from '../../../lib/domain/blocklist.js';

describe('isNetworkImageDriver', () => {
  it('is the RBD CSI driver, under any prefix the operator installed it with', () => {
    expect(isNetworkImageDriver('rbd.csi.ceph.com')).toBe(true);
    expect(isNetworkImageDriver('rook-ceph.rbd.csi.ceph.com')).toBe(true);
  });

  it('is no other driver, nor a name that only contains the RBD driver', () => {
    expect(isNetworkImageDriver('ebs.csi.aws.com')).toBe(false);
    expect(isNetworkImageDriver('cephfs.csi.ceph.com')).toBe(false);
    expect(isNetworkImageDriver('myrbd.csi.ceph.com')).toBe(false);
    expect(isNetworkImageDriver('rbd.csi.ceph.com.example')).toBe(false);
  });

  it('is no driver at all', () => {
    expect(isNetworkImageDriver(null)).toBe(false);
    expect(isNetworkImageDriver(undefined)).toBe(false);
  });
});
