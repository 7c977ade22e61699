/** Pure mapping from client-node storage objects to the Cluster port's views. */
import type { V1PersistentVolume, V1VolumeAttachment, V1VolumeError } from '@kubernetes/client-node';
import type { PersistentVolumeView, VolumeAttachmentView } from '../../ports/cluster.js';
import { isoTime } from './views.js';

const toVolumeError = (error: V1VolumeError | undefined): VolumeAttachmentView['attachError'] => {
  if (!error) return undefined;
  const time = isoTime(error.time);
  return { message: error.message ?? '', ...(time ? { time } : {}) };
};

/** A VolumeAttachment as plain data; `attached` is false until the attacher says otherwise. */
export const toVolumeAttachmentView = (va: V1VolumeAttachment): VolumeAttachmentView => ({
  name: va.metadata?.name ?? '',
  uid: va.metadata?.uid ?? '',
  nodeName: va.spec.nodeName,
  attacher: va.spec.attacher,
  persistentVolumeName: va.spec.source.persistentVolumeName || undefined,
  attached: va.status?.attached === true,
  attachError: toVolumeError(va.status?.attachError),
  detachError: toVolumeError(va.status?.detachError),
  deletionTimestamp: isoTime(va.metadata?.deletionTimestamp),
  finalizers: [...(va.metadata?.finalizers ?? [])],
  createdAt: isoTime(va.metadata?.creationTimestamp) ?? '',
});

/**
 * Node-affinity keys that name a zone: the well-known label, its deprecated beta form (in-tree
 * volumes), and the EBS CSI driver's own topology key.
 */
export const ZONE_KEYS: ReadonlySet<string> = new Set([
  'topology.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.ebs.csi.aws.com/zone',
]);

/** The zones a PV's required node affinity allows (`In` expressions on a zone key), without repeats. */
export const zonesOf = (pv: V1PersistentVolume): string[] => {
  const zones = new Set<string>();
  for (const term of pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
    for (const expression of term.matchExpressions ?? []) {
      if (expression.operator !== 'In' || !ZONE_KEYS.has(expression.key)) continue;
      for (const zone of expression.values ?? []) zones.add(zone);
    }
  }
  return [...zones];
};

/**
 * A PersistentVolume as plain data. In-tree EBS volumes (`awsElasticBlockStore`) report the
 * in-tree plugin name and volume ID, so sweeps can recognise them beside CSI ones.
 */
export const toPersistentVolumeView = (pv: V1PersistentVolume): PersistentVolumeView => {
  const spec = pv.spec;
  const claim = spec?.claimRef;
  const inTreeEbs = spec?.awsElasticBlockStore;
  return {
    name: pv.metadata?.name ?? '',
    driver: spec?.csi?.driver ?? (inTreeEbs ? 'kubernetes.io/aws-ebs' : undefined),
    volumeHandle: spec?.csi?.volumeHandle ?? inTreeEbs?.volumeID,
    accessModes: [...(spec?.accessModes ?? [])],
    storageClassName: spec?.storageClassName || undefined,
    claim: claim?.name ? { namespace: claim.namespace ?? '', name: claim.name } : undefined,
    zones: zonesOf(pv),
    nodeBound: Boolean(spec?.local ?? spec?.hostPath),
    phase: pv.status?.phase,
  };
};
