/**
 * The storage fence rules (SAFETY.md rule 1 for network images): a storage answer is read, the blocklist
 * is asked for and confirmed after the decision, re-checked before every release, and without a storage
 * fencer the old watches are waited out. Each case names what the operator reads.
 */
import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable, type RunHistory } from '../../../../lib/domain/index.js';
import { baseEvidence, fenceContext } from '../../../../lib/domain/rules/context.js';
import { deadlineOf } from '../../../../lib/domain/rules/deadline.js';
import { commit } from '../../../../lib/domain/rules/power.js';
import {
  addressesUnique,
  confirmStorage,
  stillIsolated,
  storageObserved,
  watchesGone,
} from '../../../../lib/domain/rules/storage.js';
import { PollSeconds } from '../../../../lib/domain/timing.js';
import {
  aRequest,
  checkFence,
  fault,
  freshHistory,
  INSTANCE,
  observe,
  provenHistory,
  type Spec,
  t,
} from '../support/fixtures.js';
import { aBlocklist, aStorage, ENTRY, IMAGE, RANGE, storageCommittedHistory } from '../support/storage.js';

/** A node holding one RBD image, its blocklist read at `t(at)`. */
const imageNode = (at: number, blocklist: Parameters<typeof aStorage>[0]): Spec => ({
  at,
  storage: aStorage(blocklist),
  volumeAttachments: [IMAGE],
});

/** The storage-only run, with its blocklist proven at `t(20)`. */
const storageProvenHistory = (): RunHistory => ({
  ...storageCommittedHistory(),
  storageProof: aBlocklist(20, true),
});

const SECOND = { kind: 'range', entry: '10.0.9.9/32', source: 'configured range 10.0.9.9/32' } as const;

describe('addresses-unique (SAFETY.md rules 2 and 3)', () => {
  it('refuses addresses another Node reports, naming every such node', () => {
    const storage = {
      ...aStorage(aBlocklist(0, false)),
      declared: [],
      declaredError: null,
      otherNodesSharingAddresses: ['worker-7', 'worker-8'],
      conflicts: [],
    };
    expect(checkFence(addressesUnique, { storage, volumeAttachments: [IMAGE] })).toMatchObject({
      phase: 'Refused',
      reason: 'AddressSharedWithOtherNode',
      evidence: ["node worker-1's addresses 10.0.1.23 are also reported by node worker-7, node worker-8"],
    });
    expect(checkFence(addressesUnique, imageNode(0, aBlocklist(0, false)))).toEqual(Compliant);
  });

  it('does not apply once committed when no storage fencer answers any more', () => {
    const gone = { at: 20, storage: null, volumeAttachments: [IMAGE] };
    expect(checkFence(addressesUnique, gone, aRequest(), storageCommittedHistory())).toEqual(NotApplicable);
  });
});

describe('storage-observed (SAFETY.md rule 1)', () => {
  const failure = (code?: string) => ({ name: 'CephError', message: 'no answer', ...(code ? { code } : {}) });

  it('does not apply to a node whose release needs no storage fence', () => {
    expect(checkFence(storageObserved, {})).toEqual(NotApplicable);
  });

  it('refuses for good when there is nothing to fence by, the credentials are refused, or the fence is someone else’s', () => {
    for (const [code, reason] of [
      ['NoAddressToFence', 'NoAddressToFence'],
      ['AuthRefused', 'StorageAuthRefused'],
      ['FenceNotOurs', 'StorageFenceNotOurs'],
    ]) {
      expect(checkFence(storageObserved, imageNode(0, failure(code)))).toMatchObject({
        phase: 'Refused',
        reason,
        evidence: ['ceph-rbd: CephError: no answer'],
      });
    }
  });

  it('asks again for any other failure, with the reason its code names (unreachable when unnamed)', () => {
    for (const [code, reason] of [
      ['MgrUnreachable', 'StorageUnreachable'],
      ['CommandFailed', 'StorageCommandFailed'],
      ['BlocklistNotConfirmed', 'BlocklistNotConfirmed'],
      ['SomethingNew', 'StorageUnreachable'],
      [undefined, 'StorageUnreachable'],
    ]) {
      expect(checkFence(storageObserved, imageNode(0, failure(code)))).toMatchObject({
        phase: 'Assess',
        action: null,
        waitSeconds: PollSeconds.ProviderRetry,
        reason,
        message: "The node's blocklist could not be read; asking the storage cluster again.",
        evidence: ['ceph-rbd: CephError: no answer'],
      });
    }
  });

  it('once committed, a final failure is waited on until the deadline instead', () => {
    const verdict = checkFence(
      storageObserved,
      imageNode(20, failure('AuthRefused')),
      aRequest(),
      storageCommittedHistory(),
    );
    expect(verdict).toMatchObject({ phase: 'StorageFence', action: null, reason: 'StorageAuthRefused' });
    const late = checkFence(
      storageObserved,
      imageNode(311, failure('AuthRefused')),
      aRequest(),
      storageCommittedHistory(),
    );
    expect(late).toMatchObject({ phase: 'Failed', reason: 'BlocklistNotConfirmed' });
  });

  it('is compliant with a readable answer once proven, whether or not images are left', () => {
    const answered = { at: 30, storage: aStorage(aBlocklist(30, true)), volumeAttachments: [] };
    expect(checkFence(storageObserved, answered, aRequest(), storageProvenHistory())).toEqual(Compliant);
  });

  it('a committed storage fence whose fencer is gone waits, unless every image is already released', () => {
    const noFencer = { at: 20, storage: null, volumeAttachments: [IMAGE] };
    expect(checkFence(storageObserved, noFencer, aRequest(), storageCommittedHistory())).toMatchObject({
      phase: 'StorageFence',
      action: null,
      reason: 'StorageUnreachable',
      message: 'No storage fencer serves the node.',
      evidence: [],
    });
    expect(checkFence(storageObserved, noFencer, aRequest(), storageProvenHistory())).toMatchObject({
      phase: 'Taint',
      reason: 'StorageUnreachable',
    });
    const released = { ...noFencer, volumeAttachments: [] };
    expect(checkFence(storageObserved, released, aRequest(), storageProvenHistory())).toEqual(NotApplicable);
    expect(checkFence(storageObserved, released, aRequest(), storageCommittedHistory())).toMatchObject({
      reason: 'StorageUnreachable',
    });
  });
});

describe('commit with a storage fence', () => {
  it('fences the storage clients when the blocklist could not be read', () => {
    expect(checkFence(commit, imageNode(0, { name: 'CephError', message: 'timeout' }))).toMatchObject({
      action: { kind: 'storage-fence' },
    });
  });

  it('fences the storage clients first, or only confirms a blocklist that already holds', () => {
    expect(checkFence(commit, imageNode(0, aBlocklist(0, false)))).toMatchObject({
      phase: 'StorageFence',
      action: { kind: 'storage-fence', addresses: ['10.0.1.23'], dryRun: false },
      message: "Decided to fence; fencing the node's storage clients.",
    });
    expect(checkFence(commit, imageNode(0, aBlocklist(0, true)))).toMatchObject({
      phase: 'StorageFence',
      action: null,
      waitSeconds: 0,
      message: 'Decided to fence; the blocklist already holds, confirming with a fresh look.',
    });
  });
});

describe('confirm-storage (SAFETY.md rule 1)', () => {
  it('a blocklist confirmed before the decision is not proof yet', () => {
    expect(
      checkFence(confirmStorage, imageNode(20, aBlocklist(5, true)), aRequest(), storageCommittedHistory()),
    ).toMatchObject({
      phase: 'StorageFence',
      action: null,
      waitSeconds: 0,
      message: 'The blocklist is confirmed, but not in an observation made after the decision.',
    });
  });

  it('waits for every missing entry shortly after asking, then asks again', () => {
    const twoMissing = { ...aBlocklist(15, false), expected: [ENTRY, SECOND], missing: [ENTRY, SECOND] };
    expect(
      checkFence(confirmStorage, imageNode(15, twoMissing), aRequest(), storageCommittedHistory()),
    ).toMatchObject({
      phase: 'StorageFence',
      action: null,
      waitSeconds: PollSeconds.ConfirmOff,
      message: `Waiting for the blocklist to show ${RANGE}, 10.0.9.9/32.`,
    });
    expect(
      checkFence(confirmStorage, imageNode(25, aBlocklist(25, false)), aRequest(), storageCommittedHistory()),
    ).toMatchObject({
      phase: 'StorageFence',
      action: { kind: 'storage-fence', node: 'worker-1', addresses: ['10.0.1.23'] },
      message: `Fencing the node's storage clients (${RANGE}).`,
    });
  });

  it('asks again exactly when the retry interval has passed, and at once when never asked', () => {
    // Requested at t(10); the retry interval is PollSeconds.ProviderRetry (10 s).
    expect(
      checkFence(confirmStorage, imageNode(20, aBlocklist(20, false)), aRequest(), storageCommittedHistory()),
    ).toMatchObject({ action: { kind: 'storage-fence' } });
    const neverAsked = { ...storageCommittedHistory(), storageFenceRequestedAt: null };
    expect(
      checkFence(confirmStorage, imageNode(12, aBlocklist(12, false)), aRequest(), neverAsked),
    ).toMatchObject({
      action: { kind: 'storage-fence' },
    });
  });

  it('asks again when the blocklist could not be read, saying the entries are unknown', () => {
    const unread = imageNode(25, { name: 'CephError', message: 'timeout' });
    expect(checkFence(confirmStorage, unread, aRequest(), storageCommittedHistory())).toMatchObject({
      action: { kind: 'storage-fence' },
      message: "Fencing the node's storage clients (unknown).",
    });
  });

  it('fails with BlocklistNotConfirmed once the deadline has passed', () => {
    expect(
      checkFence(
        confirmStorage,
        imageNode(311, aBlocklist(311, false)),
        aRequest(),
        storageCommittedHistory(),
      ),
    ).toMatchObject({
      phase: 'Failed',
      reason: 'BlocklistNotConfirmed',
      evidence: [`deadline was ${t(310)}`],
    });
  });
});

describe('the storage proof comes from the first observation after the decision', () => {
  it('is taken from this very observation, so nothing is left to confirm', () => {
    expect(
      checkFence(confirmStorage, imageNode(20, aBlocklist(20, true)), aRequest(), storageCommittedHistory()),
    ).toEqual(NotApplicable);
  });

  it('without it, a storage-only node is not proven: nothing is re-fenced before the proof', () => {
    expect(
      checkFence(stillIsolated, imageNode(20, aBlocklist(20, false)), aRequest(), storageCommittedHistory()),
    ).toEqual(NotApplicable);
  });
});

describe('still-isolated (SAFETY.md rule 1)', () => {
  it('does not apply while the blocklist holds', () => {
    expect(
      checkFence(stillIsolated, imageNode(30, aBlocklist(30, true)), aRequest(), storageProvenHistory()),
    ).toEqual(NotApplicable);
  });

  it('fences again before any release when an entry lapsed', () => {
    expect(
      checkFence(stillIsolated, imageNode(30, aBlocklist(30, false)), aRequest(), storageProvenHistory()),
    ).toMatchObject({
      phase: 'Taint',
      reason: 'BlocklistNotConfirmed',
      action: { kind: 'storage-fence', addresses: ['10.0.1.23'] },
      message: `The blocklist no longer shows ${RANGE}; fencing the node's storage clients again before releasing anything.`,
      evidence: [],
    });
  });

  it('fences again while the storage cluster answers, even with no image left, naming every missing entry', () => {
    const twoMissing = { ...aBlocklist(30, false), expected: [ENTRY, SECOND], missing: [ENTRY, SECOND] };
    const spec = { at: 30, storage: aStorage(twoMissing), volumeAttachments: [] };
    expect(checkFence(stillIsolated, spec, aRequest(), storageProvenHistory())).toMatchObject({
      action: { kind: 'storage-fence' },
      message: `The blocklist no longer shows ${RANGE}, 10.0.9.9/32; fencing the node's storage clients again before releasing anything.`,
    });
  });

  it('does not apply to a node that is gone', () => {
    expect(
      checkFence(
        stillIsolated,
        { ...imageNode(30, aBlocklist(30, false)), node: null },
        aRequest(),
        storageProvenHistory(),
      ),
    ).toEqual(NotApplicable);
  });

  it('without a storage answer: nothing to do once no image is left, else fence again', () => {
    const noAnswer = { at: 30, storage: null };
    expect(
      checkFence(stillIsolated, { ...noAnswer, volumeAttachments: [] }, aRequest(), storageProvenHistory()),
    ).toEqual(NotApplicable);
    expect(
      checkFence(
        stillIsolated,
        { ...noAnswer, volumeAttachments: [IMAGE] },
        aRequest(),
        storageProvenHistory(),
      ),
    ).toMatchObject({
      action: { kind: 'storage-fence', addresses: [] },
      message:
        "The blocklist no longer shows unknown; fencing the node's storage clients again before releasing anything.",
    });
  });
});

describe('watches-gone (SAFETY.md rule 1, no storage fencer)', () => {
  const watchHistory = (): RunHistory => ({
    ...provenHistory(),
    isolation: { machine: true, storage: false, watch: true },
  });
  const offNode = (at: number): Spec => ({
    at,
    power: { state: 'stopped', observedAt: t(at) },
    volumeAttachments: [IMAGE],
  });

  it('waits out what is left of the old watches after the proof of off', () => {
    expect(checkFence(watchesGone, offNode(60), aRequest(), watchHistory())).toMatchObject({
      phase: 'Taint',
      action: null,
      waitSeconds: 25,
      message: "The machine is off; its RBD images' old watches expire within 45 s of that (25 s left).",
    });
    expect(checkFence(watchesGone, offNode(85), aRequest(), watchHistory())).toEqual(NotApplicable);
  });
});

describe('the deadline with both proofs to hold', () => {
  it('once the blocklist is proven, a missing proof of off fails as such', () => {
    const history: RunHistory = {
      ...storageProvenHistory(),
      isolation: { machine: true, storage: true, watch: false },
    };
    const ctx = fenceContext(observe({ at: 400, volumeAttachments: [IMAGE] }), aRequest(), history);
    expect(deadlineOf(ctx)).toEqual({ at: Date.parse(t(310)), reason: 'PowerOffNotConfirmed' });
  });
});

describe('the drain deadline with both proofs', () => {
  it('runs from the later of the two proofs when no taint was seen', () => {
    const history: RunHistory = {
      ...provenHistory(),
      isolation: { machine: true, storage: true, watch: false },
      storageProof: aBlocklist(20, true),
    };
    const ctx = fenceContext(observe({ at: 60, volumeAttachments: [IMAGE] }), aRequest(), history);
    expect(deadlineOf(ctx)).toEqual({ at: Date.parse(t(40 + 600)), reason: 'DrainNotComplete' });
  });
});

describe('the evidence every decision starts with', () => {
  it('names every blocklist entry of the storage proof and when it was listed', () => {
    const proof = {
      ...aBlocklist(20, true),
      expected: [ENTRY, SECOND],
      found: [
        { ...ENTRY, until: t(4000) },
        { ...SECOND, until: t(4000) },
      ],
    };
    const history = { ...storageCommittedHistory(), storageProof: proof };
    const lines = baseEvidence(
      fenceContext(observe({ at: 30, volumeAttachments: [IMAGE] }), aRequest(), history),
    );
    expect(lines).toContain(`storage fenced: ${RANGE}, 10.0.9.9/32 listed at ${t(20)}`);
    expect(lines[1]).toMatch(/^instance i-0123456789abcdef0: /);
  });

  it('names the instance whose power state the provider could not give', () => {
    const ctx = fenceContext(observe({ power: fault() }), aRequest(), freshHistory());
    expect(baseEvidence(ctx)[1]).toBe(`instance ${INSTANCE}: provider error ProviderApiError: Rate exceeded`);
  });
});

describe('the storage fence action names every address the fence must cover', () => {
  const declared = ['10.9.0.0/24'];
  const witnessed = ['10.77.0.2', '10.77.0.3'];

  it('carries the node’s InternalIPs, its declared ranges and the addresses the witness showed', () => {
    const spec = {
      at: 25,
      storage: { ...aStorage(aBlocklist(25, false)), declared, witnessed },
      volumeAttachments: [IMAGE],
    };
    const verdict = checkFence(confirmStorage, spec, aRequest(), storageCommittedHistory());
    expect(verdict.kind === 'outcome' ? verdict.action : null).toEqual({
      kind: 'storage-fence',
      node: 'worker-1',
      addresses: ['10.0.1.23'],
      declared,
      witnessed,
      dryRun: false,
    });
  });

  it('names no witnessed address when the witness showed none', () => {
    for (const none of [undefined, []]) {
      const storage = { ...aStorage(aBlocklist(25, false)), declared, ...(none ? { witnessed: none } : {}) };
      const verdict = checkFence(
        confirmStorage,
        { at: 25, storage, volumeAttachments: [IMAGE] },
        aRequest(),
        storageCommittedHistory(),
      );
      expect(verdict.kind === 'outcome' ? verdict.action : null).toStrictEqual({
        kind: 'storage-fence',
        node: 'worker-1',
        addresses: ['10.0.1.23'],
        declared,
        dryRun: false,
      });
    }
  });

  it('asks for nothing beyond the recorded entries when no storage fencer answers', () => {
    const verdict = checkFence(
      stillIsolated,
      { at: 30, storage: null, volumeAttachments: [IMAGE] },
      aRequest(),
      storageProvenHistory(),
    );
    expect(verdict.kind === 'outcome' ? verdict.action : null).toStrictEqual({
      kind: 'storage-fence',
      node: 'worker-1',
      addresses: [],
      declared: [],
      dryRun: false,
    });
  });
});

describe('addresses-unique without a range conflict to name', () => {
  it('lists every address of the node that another Node reports', () => {
    const storage = {
      ...aStorage(aBlocklist(0, false)),
      addresses: ['10.0.1.23', '10.0.2.23'],
      otherNodesSharingAddresses: ['worker-7'],
    };
    expect(checkFence(addressesUnique, { storage, volumeAttachments: [IMAGE] })).toMatchObject({
      evidence: ["node worker-1's addresses 10.0.1.23, 10.0.2.23 are also reported by node worker-7"],
    });
  });
});

describe('watches-gone on a node with both a fenced image and one no storage fencer serves', () => {
  // The plan needs the machine off, the blocklist confirmed and the unserved image's watch expired.
  const mixed = (storageProof: RunHistory['storageProof']): RunHistory => ({
    ...provenHistory(),
    isolation: { machine: true, storage: true, watch: true },
    storageFenceRequestedAt: t(10),
    storageProof,
  });
  const offNode: Spec = {
    at: 60,
    power: { state: 'stopped', observedAt: t(60) },
    volumeAttachments: [IMAGE],
  };

  it('waits for nothing while the blocklist is not proven yet, though the machine is off', () => {
    expect(checkFence(watchesGone, offNode, aRequest(), mixed(null))).toEqual(NotApplicable);
  });

  it('waits out the old watches once both proofs are held', () => {
    expect(checkFence(watchesGone, offNode, aRequest(), mixed(aBlocklist(20, true)))).toMatchObject({
      action: null,
      waitSeconds: 25,
    });
  });
});
