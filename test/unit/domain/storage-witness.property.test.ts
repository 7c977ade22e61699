/**
 * Ceph's own witness (SAFETY.md rule 1): with a witness configured, a storage-only node is tainted only
 * once the storage cluster shows no watcher of its images left at an address the fence covers, and no
 * storage step is taken while the witness cannot be read. As properties over generated holders, through
 * the whole fence table (decide), with the control that the same world without such a watcher is tainted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BlocklistEvidence } from '../../../lib/domain/blocklist.js';
import { decide } from '../../../lib/domain/decide.js';
import type { RunHistory } from '../../../lib/domain/history.js';
import type { HolderEvidence, ImageHolder, ObservedStorage } from '../../../lib/domain/observation.js';
import { holdersCoveredBy } from '../../../lib/domain/rules/storage-witness.js';
import { aRequest, committedHistory, NODE, NODE_IP, observe, type Spec, t } from './support/fixtures.js';
import { aStorage, IMAGE } from './support/storage.js';

const STORAGE_IP = '10.77.0.2';
/** The fence covers the node's InternalIP and the storage address Ceph's witness showed. */
const entries = [
  { kind: 'range' as const, entry: `${NODE_IP}/32`, source: `InternalIP ${NODE_IP}` },
  { kind: 'range' as const, entry: `${STORAGE_IP}/32`, source: `watcher address ${STORAGE_IP}` },
];
const confirmed = (at: number): BlocklistEvidence => ({
  node: NODE,
  observedAt: t(at),
  expected: entries,
  found: entries.map((e) => ({ ...e, until: t(7 * 86_400) })),
  missing: [],
  related: [],
  confirmed: true,
});
const storage = (at: number, holders: ObservedStorage['holders']): ObservedStorage => ({
  ...aStorage(confirmed(at)),
  holders,
  witnessed: [],
});
const witnessed = (at: number, holders: ImageHolder[]): ObservedStorage['holders'] => ({
  ok: true,
  value: {
    source: 'rbd status as client.witness',
    observedAt: t(at),
    images: ['rbd/img'],
    holders,
  } satisfies HolderEvidence,
});

/** A bare-metal node (no machine to power off), its storage fence proven at t(20). */
const bareMetal: Partial<Spec> = {
  node: { providerId: null },
  instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
};
const provenStorageOnly = (): RunHistory => ({
  ...committedHistory(),
  target: { node: NODE, nodeUid: 'uid-worker-1', provider: null, instanceId: '' },
  powerOffRequestedAt: null,
  isolation: { machine: false, storage: true, watch: false },
  storageFenceRequestedAt: t(10),
  storageProof: confirmed(20),
});

const ADDRESSES = [NODE_IP, STORAGE_IP, '10.77.0.3', '10.0.1.99', 'fd00::2'];
const holderArb = fc.record({
  image: fc.constant('rbd/img'),
  address: fc.constantFrom(...ADDRESSES),
  client: fc.integer({ min: 4000, max: 9999 }).map((n) => `client.${n}`),
});

describe('a storage-only fence with Ceph’s witness (SAFETY.md rule 1)', () => {
  it('never taints while a watcher remains at a fenced address; taints once none does', () => {
    fc.assert(
      fc.property(fc.array(holderArb, { maxLength: 4 }), fc.integer({ min: 21, max: 200 }), (holders, at) => {
        const spec: Spec = {
          at,
          ...bareMetal,
          storage: storage(at, witnessed(at, holders)),
          volumeAttachments: [IMAGE],
        };
        const decision = decide(observe(spec), aRequest(), provenStorageOnly());
        const atFenced = holdersCoveredBy(
          holders,
          entries.map((e) => e.entry),
        );
        if (atFenced.length > 0) {
          expect(decision.action?.kind).not.toBe('taint');
          expect(decision.rule).toBe('watchers-gone');
          expect(decision.evidence.join(' ')).toContain(atFenced[0]?.address ?? '?');
        } else {
          expect(decision.action?.kind).toBe('taint');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes no step on the storage, and releases nothing, while the witness cannot be read', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.integer({ min: 21, max: 200 }), (provenAlready, at) => {
        const spec: Spec = {
          at,
          ...bareMetal,
          storage: storage(at, {
            ok: false,
            error: { name: 'CephApiError', message: 'rbd status timed out' },
          }),
          volumeAttachments: [IMAGE],
        };
        const history = provenAlready ? provenStorageOnly() : { ...provenStorageOnly(), storageProof: null };
        const decision = decide(observe(spec), aRequest(), history);
        expect(decision.action).toBeNull();
        expect(decision.reason === 'WitnessUnreadable' || decision.phase === 'Failed').toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
