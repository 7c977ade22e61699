/**
 * Builders for a node that holds a Ceph RBD image with a storage fencer configured: its blocklist as the
 * storage cluster lists it, unconfirmed or confirmed at a given time.
 */
import type { BlocklistEvidence, FenceEntry } from '../../../../lib/domain/blocklist.js';
import type { RunHistory } from '../../../../lib/domain/index.js';
import type { ObservedStorage, ProviderFault } from '../../../../lib/domain/observation.js';
import { aVolumeAttachment, committedHistory, NODE, NODE_IP, t } from './fixtures.js';

export const RANGE = `${NODE_IP}/32`;
export const ENTRY: FenceEntry = { kind: 'range', entry: RANGE, source: `InternalIP ${NODE_IP}` };

/** A VolumeAttachment of an RBD image. */
export const IMAGE = aVolumeAttachment('csi-rbd-0', {
  attacher: 'rbd.csi.ceph.com',
  csiNodeId: NODE,
  image: true,
});

/** The node's blocklist read at `t(at)`: its one entry missing, or listed (`confirmed`). */
export const aBlocklist = (at: number, confirmed: boolean): BlocklistEvidence => ({
  node: NODE,
  observedAt: t(at),
  expected: [ENTRY],
  found: confirmed ? [{ ...ENTRY, until: t(at + 3600) }] : [],
  missing: confirmed ? [] : [ENTRY],
  related: [],
  confirmed,
});

/** The storage cluster's answer for the node: a blocklist, or a fault reading it. */
export const aStorage = (blocklist: BlocklistEvidence | ProviderFault): ObservedStorage => ({
  storage: 'ceph-rbd',
  addresses: [NODE_IP],
  declared: [],
  declaredError: null,
  otherNodesSharingAddresses: [],
  conflicts: [],
  blocklist: 'expected' in blocklist ? { ok: true, value: blocklist } : { ok: false, error: blocklist },
});

/** A run that committed at `t(10)` to fence the node's storage clients only (it holds just an image). */
export const storageCommittedHistory = (): RunHistory => ({
  ...committedHistory(),
  isolation: { machine: false, storage: true, watch: false },
  powerOffRequestedAt: null,
  storageFenceRequestedAt: t(10),
});
