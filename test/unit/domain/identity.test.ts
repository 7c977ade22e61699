/**
 * compareIdentity on its own (SAFETY.md rule 3): which of the node's signals corroborate the machine,
 * which contradict it, and the sentence each leaves in the evidence.
 */
import { describe, expect, it } from 'vitest';
import { compareIdentity } from '../../../lib/domain/identity.js';
import { aNode, aVolumeAttachment, IDENTITY, INSTANCE, NODE_DNS, NODE_IP } from './support/fixtures.js';

const OTHER = 'i-0ffffffffffffffff';

describe('compareIdentity', () => {
  it('counts every signal that names the machine, one sentence each', () => {
    expect(compareIdentity(aNode(), [aVolumeAttachment('csi-db-0')], INSTANCE, IDENTITY)).toEqual({
      agreements: [
        `CSINode worker-1 (ebs.csi.aws.com) names ${INSTANCE}`,
        `VolumeAttachment csi-db-0 names ${INSTANCE}`,
        `InternalIP ${NODE_IP} is an address of ${INSTANCE}`,
        `InternalDNS ${NODE_DNS} is ${INSTANCE}'s host name`,
        `Hostname ${NODE_DNS} is ${INSTANCE}'s host name`,
      ],
      contradictions: [],
    });
  });

  it('names each signal that points at another machine', () => {
    const node = aNode({
      csiNodeIds: [{ driver: 'diskplugin.csi.alibabacloud.com', nodeId: OTHER }],
      addresses: [{ type: 'InternalIP', address: '10.9.9.9' }],
    });
    expect(
      compareIdentity(node, [aVolumeAttachment('csi-x', { csiNodeId: OTHER })], INSTANCE, IDENTITY),
    ).toEqual({
      agreements: [],
      contradictions: [
        `CSINode worker-1 (diskplugin.csi.alibabacloud.com) names ${OTHER}, not ${INSTANCE}`,
        `VolumeAttachment csi-x names ${OTHER}, not ${INSTANCE}`,
        `InternalIP 10.9.9.9 is not an address of ${INSTANCE} (${NODE_IP})`,
      ],
    });
  });

  it('ignores drivers that do not key nodes by instance id, and attachments without a node id', () => {
    const node = aNode({ csiNodeIds: [{ driver: 'rbd.csi.ceph.com', nodeId: OTHER }], addresses: [] });
    const attachments = [
      aVolumeAttachment('csi-rbd', { attacher: 'rbd.csi.ceph.com', csiNodeId: OTHER }),
      aVolumeAttachment('csi-none', { attacher: null, csiNodeId: OTHER }),
      aVolumeAttachment('csi-blank', { csiNodeId: null }),
    ];
    expect(compareIdentity(node, attachments, INSTANCE, IDENTITY)).toEqual({
      agreements: [],
      contradictions: [],
    });
  });

  it('compares nothing on addresses the provider no longer reports (a terminated machine), or does not know', () => {
    const node = aNode({ csiNodeIds: [], addresses: [{ type: 'InternalIP', address: '10.9.9.9' }] });
    const bare = { ...IDENTITY, privateIps: [], hostnames: [] };
    expect(compareIdentity(node, [], INSTANCE, bare)).toEqual({ agreements: [], contradictions: [] });
    expect(compareIdentity(node, [], INSTANCE, null)).toEqual({ agreements: [], contradictions: [] });
  });

  it('takes host names only as corroboration, case-insensitively, from InternalDNS or Hostname', () => {
    const node = (type: string) =>
      aNode({ csiNodeIds: [], addresses: [{ type, address: NODE_DNS.toUpperCase() }] });
    expect(compareIdentity(node('InternalDNS'), [], INSTANCE, IDENTITY).agreements).toEqual([
      `InternalDNS ${NODE_DNS.toUpperCase()} is ${INSTANCE}'s host name`,
    ]);
    expect(compareIdentity(node('Hostname'), [], INSTANCE, IDENTITY).agreements).toHaveLength(1);
    expect(compareIdentity(node('ExternalDNS'), [], INSTANCE, IDENTITY).agreements).toEqual([]);
    // A host name that is not the machine's contradicts nothing: kubelets may override it.
    const renamed = aNode({ csiNodeIds: [], addresses: [{ type: 'Hostname', address: 'db-primary' }] });
    expect(compareIdentity(renamed, [], INSTANCE, IDENTITY)).toEqual({ agreements: [], contradictions: [] });
  });
});
