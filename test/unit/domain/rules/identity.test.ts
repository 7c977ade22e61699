import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/index.js';
import {
  identityConsistent,
  identityCorroborated,
  instanceUnique,
} from '../../../../lib/domain/rules/identity.js';
import {
  aRequest,
  aVolumeAttachment,
  checkFence,
  committedHistory,
  fault,
  IDENTITY,
  INSTANCE,
  NODE_DNS,
} from '../support/fixtures.js';

describe('instance-unique (SAFETY.md rules 2 and 3)', () => {
  it('is compliant when no other Node names the machine', () => {
    expect(checkFence(instanceUnique, {})).toEqual(Compliant);
  });

  it('refuses when another Node names the same machine (a stale or hand-made Node)', () => {
    expect(checkFence(instanceUnique, { otherNodes: ['worker-7'] })).toMatchObject({
      phase: 'Refused',
      reason: 'InstanceClaimedByOtherNode',
      evidence: [`instance ${INSTANCE} is also named by node worker-7`],
    });
  });

  it('names every other Node that claims the machine', () => {
    expect(checkFence(instanceUnique, { otherNodes: ['worker-7', 'worker-8'] })).toMatchObject({
      evidence: [`instance ${INSTANCE} is also named by node worker-7, node worker-8`],
    });
  });

  it('refuses mid-run too: a Node registered for the machine means it is alive', () => {
    expect(
      checkFence(instanceUnique, { otherNodes: ['worker-7'] }, aRequest(), committedHistory()),
    ).toMatchObject({
      reason: 'InstanceClaimedByOtherNode',
    });
  });
});

describe('identity-consistent (SAFETY.md rule 3)', () => {
  it('is compliant when every signal names the machine', () => {
    expect(checkFence(identityConsistent, {})).toEqual(Compliant);
  });

  it('refuses a node whose InternalIP is not an address of the machine', () => {
    const node = { addresses: [{ type: 'InternalIP', address: '10.9.9.9' }] };
    expect(checkFence(identityConsistent, { node })).toMatchObject({
      phase: 'Refused',
      reason: 'IdentityMismatch',
    });
  });

  it('refuses a node whose CSINode, or whose VolumeAttachment, names another instance', () => {
    const csiNodeIds = [{ driver: 'ebs.csi.aws.com', nodeId: 'i-0fffffffffffffff0' }];
    expect(checkFence(identityConsistent, { node: { csiNodeIds } })).toMatchObject({
      reason: 'IdentityMismatch',
    });
    const va = aVolumeAttachment('csi-x', { csiNodeId: 'i-0fffffffffffffff0' });
    expect(checkFence(identityConsistent, { volumeAttachments: [va] })).toMatchObject({
      reason: 'IdentityMismatch',
    });
  });

  it('ignores CSI drivers that do not key nodes by instance id, and a machine without addresses', () => {
    const csiNodeIds = [{ driver: 'rbd.csi.ceph.com', nodeId: 'node-a' }];
    expect(checkFence(identityConsistent, { node: { csiNodeIds } })).toEqual(Compliant);
    const terminated = { ...IDENTITY, privateIps: [], hostnames: [] };
    expect(checkFence(identityConsistent, { identity: terminated })).toEqual(Compliant);
  });

  it('does not apply when the identity could not be read', () => {
    expect(checkFence(identityConsistent, { identity: fault() })).toEqual(NotApplicable);
  });
});

describe('identity-corroborated (SAFETY.md rule 3)', () => {
  it.each([
    [
      'an InternalIP',
      { addresses: [{ type: 'InternalIP', address: IDENTITY.privateIps[0] ?? '' }], csiNodeIds: [] },
    ],
    ['a host name', { addresses: [{ type: 'Hostname', address: NODE_DNS.toUpperCase() }], csiNodeIds: [] }],
    ['a CSI node ID', { addresses: [] }],
  ])('is compliant when %s names the machine', (_, node) => {
    expect(checkFence(identityCorroborated, { node, volumeAttachments: [] })).toEqual(Compliant);
  });

  it('refuses when nothing but the providerID ties the node to the machine', () => {
    const node = { addresses: [{ type: 'Hostname', address: 'hand-made' }], csiNodeIds: [] };
    expect(checkFence(identityCorroborated, { node, volumeAttachments: [] })).toMatchObject({
      phase: 'Refused',
      reason: 'IdentityUnproven',
    });
  });

  it('says what the node and the machine each report when nothing ties them together', () => {
    const node = { addresses: [{ type: 'Hostname', address: 'hand-made' }], csiNodeIds: [] };
    expect(checkFence(identityCorroborated, { node, volumeAttachments: [] })).toMatchObject({
      evidence: [
        'node worker-1 reports addresses Hostname hand-made and no CSI node ID naming the machine',
        `${INSTANCE} has addresses 10.0.1.23 and host names ${NODE_DNS}`,
      ],
    });
    const bare = { node: { addresses: [], csiNodeIds: [] }, volumeAttachments: [] };
    expect(
      checkFence(identityCorroborated, { ...bare, identity: { ...IDENTITY, privateIps: [], hostnames: [] } }),
    ).toMatchObject({
      reason: 'IdentityUnproven',
      evidence: [
        'node worker-1 reports addresses none and no CSI node ID naming the machine',
        `${INSTANCE} has addresses none and host names none`,
      ],
    });
  });

  it('refuses when the provider does not know the machine, saying so', () => {
    const node = { addresses: [{ type: 'Hostname', address: 'hand-made' }], csiNodeIds: [] };
    expect(checkFence(identityCorroborated, { node, volumeAttachments: [], identity: null })).toMatchObject({
      phase: 'Refused',
      reason: 'IdentityUnproven',
      evidence: [expect.any(String), `the provider does not know ${INSTANCE}`],
    });
  });

  it('names the provider error when the machine could not be read', () => {
    expect(checkFence(identityCorroborated, { identity: fault('Rate exceeded') })).toMatchObject({
      evidence: ['identity check failed: ProviderApiError: Rate exceeded'],
    });
  });

  it('waits when the machine could not be read, with the throttling reason when throttled', () => {
    expect(checkFence(identityCorroborated, { identity: fault() })).toMatchObject({
      reason: 'ProviderApiError',
    });
    expect(checkFence(identityCorroborated, { identity: { ...fault(), throttled: true } })).toMatchObject({
      reason: 'ProviderThrottled',
      action: null,
    });
  });

  it('does not apply once committed (a terminated machine loses its addresses)', () => {
    const node = { addresses: [], csiNodeIds: [] };
    expect(
      checkFence(
        identityCorroborated,
        { at: 20, node, volumeAttachments: [] },
        aRequest(),
        committedHistory(),
      ),
    ).toEqual(NotApplicable);
  });
});
