/** Provisioners whose volumes live in one zone and cannot follow a pod to another. */

/**
 * CSI drivers and in-tree plugins of zonal block storage. Ceph RBD (`rbd.csi.ceph.com`) is not zonal:
 * any node that reaches the Ceph cluster can map the image.
 */
export const ZONAL_PROVISIONERS: ReadonlySet<string> = new Set([
  'ebs.csi.aws.com',
  'kubernetes.io/aws-ebs',
  'diskplugin.csi.alibabacloud.com',
  'pd.csi.storage.gke.io',
  'kubernetes.io/gce-pd',
  'disk.csi.azure.com',
  'kubernetes.io/azure-disk',
]);

export const isZonalProvisioner = (provisioner: string): boolean => ZONAL_PROVISIONERS.has(provisioner);
