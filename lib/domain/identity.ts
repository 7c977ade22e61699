/**
 * Is this Node really the machine its providerID names? The providerID is one source; the Node's own
 * addresses, its CSI node IDs and the VolumeAttachments' node IDs are others, reported by different
 * components (kubelet, CSI node plugin, external-attacher), and the provider has its own account of the
 * machine's addresses and host names. Evidence that independent sources agree on is proof; one that
 * contradicts the machine makes the node someone else (SAFETY.md rule 3).
 */
import type { InstanceIdentity } from './instance.js';
import type { ObservedNode, ObservedVolumeAttachment } from './observation.js';

/** CSI drivers whose node plugin reports the machine's instance id as its node ID. */
export const INSTANCE_KEYED_CSI_DRIVERS: ReadonlySet<string> = new Set([
  'ebs.csi.aws.com',
  'diskplugin.csi.alibabacloud.com',
]);

/** What the independent signals say about node ↔ instance, one sentence per signal. */
export interface IdentityComparison {
  /** Signals that name the instance: each is corroboration. */
  readonly agreements: readonly string[];
  /** Signals that name another machine: each alone makes the node someone else. */
  readonly contradictions: readonly string[];
}

const lower = (text: string): string => text.toLowerCase();

/** The CSI node IDs an instance-keyed driver reported for the node, with where each was read. */
function instanceKeyedIds(
  node: ObservedNode,
  attachments: readonly ObservedVolumeAttachment[],
): { readonly source: string; readonly nodeId: string }[] {
  const fromCsiNode = node.csiNodeIds
    .filter((id) => INSTANCE_KEYED_CSI_DRIVERS.has(id.driver))
    .map((id) => ({ source: `CSINode ${node.name} (${id.driver})`, nodeId: id.nodeId }));
  const fromAttachments = attachments
    .filter((va) => va.attacher !== null && INSTANCE_KEYED_CSI_DRIVERS.has(va.attacher) && va.csiNodeId)
    .map((va) => ({ source: `VolumeAttachment ${va.name}`, nodeId: va.csiNodeId ?? '' }));
  return [...fromCsiNode, ...fromAttachments];
}

/**
 * Compares the node's signals with the machine. InternalIPs must be addresses the machine has (a cloud
 * controller reports exactly those); host names only corroborate, because a kubelet's hostname may be
 * overridden to anything. A machine that no longer reports addresses (terminated) is not compared on them.
 */
export function compareIdentity(
  node: ObservedNode,
  attachments: readonly ObservedVolumeAttachment[],
  instanceId: string,
  identity: InstanceIdentity | null,
): IdentityComparison {
  const agreements: string[] = [];
  const contradictions: string[] = [];
  for (const { source, nodeId } of instanceKeyedIds(node, attachments)) {
    if (nodeId === instanceId) agreements.push(`${source} names ${instanceId}`);
    else contradictions.push(`${source} names ${nodeId}, not ${instanceId}`);
  }
  if (identity !== null && identity.privateIps.length > 0) {
    const machine = new Set(identity.privateIps);
    for (const { address } of node.addresses.filter((a) => a.type === 'InternalIP')) {
      if (machine.has(address)) agreements.push(`InternalIP ${address} is an address of ${instanceId}`);
      else
        contradictions.push(
          `InternalIP ${address} is not an address of ${instanceId} (${identity.privateIps.join(', ')})`,
        );
    }
  }
  if (identity !== null && identity.hostnames.length > 0) {
    const names = new Set(identity.hostnames.map(lower));
    const named = node.addresses.filter(
      (a) => (a.type === 'InternalDNS' || a.type === 'Hostname') && names.has(lower(a.address)),
    );
    for (const { type, address } of named) agreements.push(`${type} ${address} is ${instanceId}'s host name`);
  }
  return { agreements, contradictions };
}
