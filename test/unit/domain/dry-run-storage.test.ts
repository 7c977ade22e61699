/** The dry-run report of a node with RBD images says the storage fence comes first (SAFETY.md rule 8). */
import { describe, expect, it } from 'vitest';
import { decide } from '../../../lib/domain/index.js';
import type { ObservedStorage } from '../../../lib/domain/observation.js';
import {
  aRequest,
  aVolumeAttachment,
  freshHistory,
  NODE,
  NODE_IP,
  observe,
  type Spec,
} from './support/fixtures.js';

const RANGE = `${NODE_IP}/32`;
const storage: ObservedStorage = {
  storage: 'ceph-rbd',
  addresses: [NODE_IP],
  declared: [],
  declaredError: null,
  otherNodesSharingAddresses: [],
  conflicts: [],
  blocklist: {
    ok: true,
    value: {
      node: NODE,
      observedAt: '2026-03-01T10:00:00.000Z',
      expected: [{ kind: 'range', entry: RANGE, source: `InternalIP ${NODE_IP}` }],
      found: [],
      missing: [{ kind: 'range', entry: RANGE, source: `InternalIP ${NODE_IP}` }],
      related: [],
      confirmed: false,
    },
  },
};
const image = aVolumeAttachment('csi-rbd-0', { attacher: 'rbd.csi.ceph.com', csiNodeId: NODE, image: true });
const dryRun = (spec: Spec) => decide(observe(spec), aRequest({ dryRun: true }), freshHistory());

describe('the dry-run report of a node holding RBD images', () => {
  it('on a node with a disk and an image: blocklist and confirm, then power off, naming the entries', () => {
    const decision = dryRun({ storage, volumeAttachments: [aVolumeAttachment('csi-db-0'), image] });
    expect(decision).toMatchObject({
      phase: 'DryRunReported',
      action: { kind: 'storage-fence', dryRun: true, addresses: [NODE_IP] },
    });
    const plan = decision.evidence.join('\n');
    expect(plan).toContain(
      `blocklist node ${NODE}'s storage clients on ceph-rbd (${RANGE}), releasing its 1 RBD images`,
    );
    expect(decision.message.indexOf('blocklist')).toBeLessThan(decision.message.indexOf('power off'));
  });

  const bareMetal = {
    node: { providerId: null },
    instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
    volumeAttachments: [image],
  } as const satisfies Spec;
  const witnessed: ObservedStorage = {
    ...storage,
    holders: {
      ok: true,
      value: {
        source: 'rbd status as client.witness',
        observedAt: '2026-03-01T10:00:00.000Z',
        images: ['rbd/csi-vol-0'],
        holders: [{ image: 'rbd/csi-vol-0', address: NODE_IP, client: 'client.4156' }],
      },
    },
  };

  it("on a bare-metal node without the storage cluster's witness: refused, the blocklist would rest on the Node's word", () => {
    const decision = dryRun({ ...bareMetal, storage });
    expect(decision).toMatchObject({ phase: 'Refused', reason: 'WitnessRequired', action: null });
    expect(decision.evidence.join('\n')).toContain(`what node ${NODE} reports (${NODE_IP})`);
  });

  it("on a bare-metal node whose images only its kubelet's report names: refused, the witness read none of them", () => {
    const readNothing: ObservedStorage = {
      ...storage,
      holders: {
        ok: true,
        value: {
          source: 'rbd status as client.witness',
          observedAt: '2026-03-01T10:00:00.000Z',
          images: [],
          holders: [],
        },
      },
    };
    // Tainted by hand: its attachments are gone, only the kubelet's last volumesInUse names the image.
    const observation = observe({ ...bareMetal, volumeAttachments: [], storage: readNothing });
    const decision = decide(
      {
        ...observation,
        workload: {
          ...observation.workload,
          imagesInUse: ['kubernetes.io/csi/rbd.csi.ceph.com^0001-0009-rook-ceph-0000000000000002-db'],
        },
      },
      aRequest({ dryRun: true }),
      freshHistory(),
    );
    expect(decision).toMatchObject({ phase: 'Refused', reason: 'WitnessRequired', action: null });
    expect(decision.evidence.join('\n')).toContain('read none of node');
  });

  it('on a bare-metal node: the blocklist alone, no machine to power off and no disk to wait for', () => {
    const decision = dryRun({
      storage: witnessed,
      node: { providerId: null },
      instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
      volumeAttachments: [image],
    });
    expect(decision.action).toMatchObject({ kind: 'storage-fence', dryRun: true });
    expect(decision.message).toMatch(/^Dry run: would blocklist node worker-1's storage clients/);
    expect(decision.message).not.toContain('power off');
    expect(decision.message).not.toContain('disks');
  });

  it('without a storage fencer: power off, then wait out the old watches', () => {
    const decision = dryRun({ storage: null, volumeAttachments: [image] });
    expect(decision.action).toMatchObject({ kind: 'power-off', dryRun: true });
    expect(decision.message).toContain('wait 45s more for the old watches on its RBD images to expire');
  });
});
