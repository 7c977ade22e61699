/** The diagnosis tree's nodes, built from what was read: one line of state, details, events, children. */
import type { EventLine, PodFact, TreeNode } from '../../domain/diagnose/model.js';
import { liveAttachments } from '../../domain/disk.js';
import type { DiskFact, InstanceFact } from '../../domain/sweep/cross-check.js';
import type {
  NodeView,
  PersistentVolumeClaimView,
  PersistentVolumeView,
  PodView,
  VolumeAttachmentView,
} from '../../ports/cluster.js';

const node = (
  kind: TreeNode['kind'],
  name: string,
  state: string,
  rest: Partial<Pick<TreeNode, 'namespace' | 'details' | 'events' | 'children'>> = {},
): TreeNode => ({ kind, name, state, details: [], events: [], children: [], ...rest });

export const podFact = (pod: PodView): PodFact => ({
  namespace: pod.namespace,
  name: pod.name,
  ...(pod.nodeName ? { nodeName: pod.nodeName } : {}),
  phase: pod.phase,
  ...(pod.waitingReason ? { waitingReason: pod.waitingReason } : {}),
  ...(pod.unschedulableMessage ? { unschedulableMessage: pod.unschedulableMessage } : {}),
  terminating: pod.deletionTimestamp !== undefined,
  claimNames: pod.claimNames,
});

export const podTree = (pod: PodView, events: readonly EventLine[], children: TreeNode[]): TreeNode =>
  node(
    'Pod',
    pod.name,
    `${pod.phase}${pod.waitingReason ? ` (${pod.waitingReason})` : ''} on ${pod.nodeName ?? 'no node (unscheduled)'}` +
      `${pod.deletionTimestamp ? `, Terminating since ${pod.deletionTimestamp}` : ''}`,
    {
      namespace: pod.namespace,
      details: pod.unschedulableMessage ? [`scheduler: ${pod.unschedulableMessage}`] : [],
      events,
      children,
    },
  );

export const claimTree = (
  claim: PersistentVolumeClaimView,
  events: readonly EventLine[],
  children: TreeNode[],
): TreeNode =>
  node(
    'PersistentVolumeClaim',
    claim.name,
    `${claim.phase ?? 'unknown'} → ${claim.volumeName ?? 'no volume'}`,
    {
      namespace: claim.namespace,
      details: [`access ${claim.accessModes.join('/') || '-'}, class ${claim.storageClassName ?? '-'}`],
      events,
      children,
    },
  );

export const missingTree = (kind: TreeNode['kind'], name: string, namespace?: string): TreeNode =>
  node(kind, name, 'NOT FOUND', namespace ? { namespace } : {});

export const pvTree = (
  pv: PersistentVolumeView,
  events: readonly EventLine[],
  children: TreeNode[],
): TreeNode =>
  node('PersistentVolume', pv.name, `${pv.phase ?? 'unknown'}, ${pv.accessModes.join('/')}`, {
    details: [
      `driver ${pv.driver ?? '-'}, disk ${pv.volumeHandle ?? '-'}`,
      ...(pv.zones.length ? [`zone ${pv.zones.join(', ')}`] : []),
      ...(pv.nodeBound ? [`local volume pinned to ${pv.nodeNames?.join(', ') || 'one node'}`] : []),
    ],
    events,
    children,
  });

export const attachmentTree = (va: VolumeAttachmentView, children: TreeNode[]): TreeNode =>
  node(
    'VolumeAttachment',
    va.name,
    `attached=${va.attached} on ${va.nodeName}${va.deletionTimestamp ? `, deleting since ${va.deletionTimestamp}` : ''}`,
    {
      details: [
        ...(va.attachError ? [`attachError: ${va.attachError.message}`] : []),
        ...(va.detachError ? [`detachError: ${va.detachError.message}`] : []),
        ...(va.finalizers.length ? [`finalizers: ${va.finalizers.join(', ')}`] : []),
      ],
      children,
    },
  );

export const nodeTree = (
  name: string,
  view: NodeView | null,
  events: readonly EventLine[],
  children: TreeNode[],
): TreeNode => {
  if (!view) return node('Node', name, 'NOT FOUND (deleted)', { children });
  const oos = view.taints.find((t) => t.key === 'node.kubernetes.io/out-of-service');
  return node('Node', name, `Ready=${view.ready}${view.readySince ? ` since ${view.readySince}` : ''}`, {
    details: [
      `providerID ${view.providerId ?? '-'}`,
      `taints: ${view.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(', ') || 'none'}`,
      ...(oos ? ['out-of-service taint present'] : []),
    ],
    events,
    children,
  });
};

export const instanceTree = (fact: InstanceFact | null, problem: string | undefined): TreeNode => {
  if (!fact) return node('Instance', '?', `not observed: ${problem ?? 'unknown'}`);
  if (!fact.power.ok)
    return node(
      'Instance',
      fact.instanceId,
      `unknown: ${fact.power.error.name}: ${fact.power.error.message}`,
    );
  const p = fact.power.value;
  return node(
    'Instance',
    fact.instanceId,
    `${p.providerState ?? p.state}${p.stateCode !== undefined ? ` (code ${p.stateCode})` : ''}`,
    {
      details: [
        ...(p.stateReason ? [`reason: ${p.stateReason}`] : []),
        ...(p.launchTime ? [`launched ${p.launchTime}`] : []),
        `observed ${p.observedAt}`,
      ],
    },
  );
};

export const diskTree = (fact: DiskFact): TreeNode => {
  if (!fact.disk.ok)
    return node('Disk', fact.volumeId, `unknown: ${fact.disk.error.name}: ${fact.disk.error.message}`);
  const d = fact.disk.value;
  if (!d.exists) return node('Disk', fact.volumeId, 'does not exist at the provider');
  const live = liveAttachments(d);
  const where = live.length
    ? live.map((a) => `${a.state} to ${a.instanceId}`).join(', ')
    : 'attached nowhere';
  return node('Disk', fact.volumeId, `${d.providerState ?? '?'}, ${where}`, {
    details: d.zone ? [`zone ${d.zone}`, `observed ${d.observedAt}`] : [`observed ${d.observedAt}`],
  });
};
