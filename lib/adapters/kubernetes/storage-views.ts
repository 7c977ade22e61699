/** Pure mapping from Kubernetes storage objects (JSON, typed with client-node's models) to the Cluster port's views. */
import type {
  V1CSINode,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1StorageClass,
  V1VolumeAttachment,
  V1VolumeError,
} from '@kubernetes/client-node';
import type {
  CSINodeView,
  PersistentVolumeClaimView,
  PersistentVolumeView,
  StorageClassView,
  VolumeAttachmentView,
} from '../../ports/cluster.js';
import { isoTime } from './views.js';

const toVolumeError = (error: V1VolumeError | undefined): VolumeAttachmentView['attachError'] => {
  if (!error) return undefined;
  const time = isoTime(error.time);
  return { message: error.message ?? '', ...(time ? { time } : {}) };
};

/** Where the external-attacher records the CSI node id it attached to (the EBS instance id). */
export const CSI_NODE_ID_ANNOTATION = 'csi.alpha.kubernetes.io/node-id';

/** A VolumeAttachment as plain data; `attached` is false until the attacher says otherwise. */
export const toVolumeAttachmentView = (va: V1VolumeAttachment): VolumeAttachmentView => {
  const nodeId = va.metadata?.annotations?.[CSI_NODE_ID_ANNOTATION];
  return { ...vaFields(va), ...(nodeId ? { csiNodeId: nodeId } : {}) };
};

const vaFields = (va: V1VolumeAttachment): VolumeAttachmentView => ({
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
    ...(spec?.local || spec?.hostPath ? { nodeNames: hostnamesOf(pv) } : {}),
    ...(spec?.csi?.volumeAttributes ? { attributes: { ...spec.csi.volumeAttributes } } : {}),
  };
};

/** The node names a PV's required affinity pins it to (`kubernetes.io/hostname In [...]`). */
export const hostnamesOf = (pv: V1PersistentVolume): string[] =>
  (pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []).flatMap((term) =>
    (term.matchExpressions ?? [])
      .filter((e) => e.key === 'kubernetes.io/hostname' && e.operator === 'In')
      .flatMap((e) => e.values ?? []),
  );

/** A PersistentVolumeClaim as plain data. */
export const toPersistentVolumeClaimView = (pvc: V1PersistentVolumeClaim): PersistentVolumeClaimView => ({
  namespace: pvc.metadata?.namespace ?? '',
  name: pvc.metadata?.name ?? '',
  uid: pvc.metadata?.uid ?? '',
  volumeName: pvc.spec?.volumeName || undefined,
  storageClassName: pvc.spec?.storageClassName || undefined,
  accessModes: [...(pvc.spec?.accessModes ?? [])],
  phase: pvc.status?.phase,
});

/** A StorageClass as plain data; a missing binding mode is the API's default, `Immediate`. */
export const toStorageClassView = (sc: V1StorageClass): StorageClassView => ({
  name: sc.metadata?.name ?? '',
  provisioner: sc.provisioner,
  volumeBindingMode: sc.volumeBindingMode || 'Immediate',
  allowedTopologies: (sc.allowedTopologies ?? []).length > 0,
});

/** A CSINode's drivers with their node ids and attach limits. */
export const toCsiNodeView = (csiNode: V1CSINode): CSINodeView => ({
  name: csiNode.metadata?.name ?? '',
  drivers: (csiNode.spec?.drivers ?? []).map((d) => ({
    name: d.name,
    ...(d.nodeID ? { nodeId: d.nodeID } : {}),
    ...(typeof d.allocatable?.count === 'number' ? { allocatableCount: d.allocatable.count } : {}),
  })),
});
