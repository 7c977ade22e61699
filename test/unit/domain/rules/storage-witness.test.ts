/**
 * Ceph's own witness, rule by rule (SAFETY.md rules 1 and 2): which watchers a fence covers, a witness
 * that cannot be read (refused credentials end a run before the commitment, anything else is asked
 * again), a bare-metal node refused without a witness (each line the operator reads), and the taint
 * held while a watcher remains at a fenced address.
 */
import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable, type RunHistory } from '../../../../lib/domain/index.js';
import type { ImageHolder, ObservedStorage, ProviderFault } from '../../../../lib/domain/observation.js';
import {
  holdersCoveredBy,
  watchersGone,
  witnessObserved,
  witnessRequired,
} from '../../../../lib/domain/rules/storage-witness.js';
import { PollSeconds } from '../../../../lib/domain/timing.js';
import { aRequest, checkFence, NODE, NODE_IP, type Spec, t } from '../support/fixtures.js';
import { aBlocklist, aStorage, IMAGE, storageCommittedHistory } from '../support/storage.js';

const SOURCE = 'rbd status as client.witness';
const holder = (address: string, client = 'client.4156', image = 'rbd/img'): ImageHolder => ({
  image,
  address,
  client,
});

/** The witness's answer at `t(at)`: the images it read and who holds them. */
const witnessed = (at: number, holders: ImageHolder[], images = ['rbd/img']): ObservedStorage['holders'] => ({
  ok: true,
  value: { source: SOURCE, observedAt: t(at), images, holders },
});
const unreadable = (code?: string): ObservedStorage['holders'] => ({
  ok: false,
  error: {
    name: 'CephApiError',
    message: 'rbd status timed out',
    ...(code ? { code } : {}),
  } as ProviderFault,
});

/** A node holding one RBD image, the storage cluster's answer overridden by `storage`. */
const imageNode = (storage: Partial<ObservedStorage>, at = 0): Spec => ({
  at,
  storage: { ...aStorage(aBlocklist(at, false)), ...storage },
  volumeAttachments: [IMAGE],
});
/** The same node without a machine a compute provider can power off (bare metal). */
const bareMetal = (storage: Partial<ObservedStorage>): Spec => ({
  ...imageNode(storage),
  node: { providerId: null },
  instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
});

describe('holdersCoveredBy: the watchers a fence covers', () => {
  const holders = [
    holder(NODE_IP, 'client.1'),
    holder('10.77.0.9', 'client.2'),
    holder('10.0.1.99', 'client.3'),
    holder('fd00::2', 'client.4'),
    holder('not-an-ip', 'client.5'),
  ];

  it('keeps exactly the holders whose address one entry covers, in their order, compared as ranges', () => {
    expect(holdersCoveredBy(holders, [`${NODE_IP}/32`, '10.77.0.0/24'])).toEqual([holders[0], holders[1]]);
    expect(holdersCoveredBy(holders, ['10.0.1.0/24'])).toEqual([holders[0], holders[2]]);
    expect(holdersCoveredBy(holders, ['fd00::/64'])).toEqual([holders[3]]);
  });

  it('reads Ceph’s IP-wide entry as its single address, and skips entries that are no IP', () => {
    expect(holdersCoveredBy(holders, ['storage-a', `${NODE_IP}:0/0`])).toEqual([holders[0]]);
    expect(holdersCoveredBy(holders, ['storage-a'])).toEqual([]);
  });

  it('covers nothing with no entry, and never a holder whose address is no IP', () => {
    expect(holdersCoveredBy(holders, [])).toEqual([]);
    expect(holdersCoveredBy([holder('not-an-ip')], ['0.0.0.0/0', '::/0'])).toEqual([]);
  });
});

describe('witness-observed (SAFETY.md rule 1)', () => {
  const evidence = ['witness: CephApiError: rbd status timed out'];

  it('refuses at once, before the commitment, when the storage cluster refuses the witness’s credentials', () => {
    expect(checkFence(witnessObserved, imageNode({ holders: unreadable('AuthRefused') }))).toMatchObject({
      phase: 'Refused',
      action: null,
      reason: 'WitnessUnreadable',
      evidence,
    });
  });

  it('asks again for any other failure before the commitment, saying so', () => {
    for (const code of [undefined, 'MgrUnreachable', 'CommandFailed']) {
      expect(checkFence(witnessObserved, imageNode({ holders: unreadable(code) })), code).toEqual(
        expect.objectContaining({
          phase: 'Assess',
          action: null,
          waitSeconds: PollSeconds.ProviderRetry,
          reason: 'WitnessUnreadable',
          message: "The watchers of the node's images could not be read; asking the storage cluster again.",
          evidence,
        }),
      );
    }
  });

  it('once committed, even refused credentials are asked again (the fence is under way), until the deadline', () => {
    const spec = imageNode({ holders: unreadable('AuthRefused') }, 20);
    expect(checkFence(witnessObserved, spec, aRequest(), storageCommittedHistory())).toMatchObject({
      phase: 'StorageFence',
      action: null,
      waitSeconds: PollSeconds.ProviderRetry,
      reason: 'WitnessUnreadable',
      evidence,
    });
    const late = imageNode({ holders: unreadable('AuthRefused') }, 311);
    expect(checkFence(witnessObserved, late, aRequest(), storageCommittedHistory())).toMatchObject({
      phase: 'Failed',
    });
  });

  it('does not apply when the witness answered, when there is none, or without a storage fence', () => {
    expect(checkFence(witnessObserved, imageNode({ holders: witnessed(0, []) }))).toEqual(NotApplicable);
    expect(checkFence(witnessObserved, imageNode({}))).toEqual(NotApplicable);
    const disksOnly = { storage: { ...aStorage(aBlocklist(0, false)), holders: unreadable('AuthRefused') } };
    expect(checkFence(witnessObserved, disksOnly)).toEqual(NotApplicable);
  });
});

describe('witness-required (SAFETY.md rules 1 and 2)', () => {
  const noMachine = `node ${NODE} names no machine a compute provider can power off, so the blocklist would be its one barrier`;
  const coversOnly = (reported: string) =>
    `the blocklist would cover only what node ${NODE} reports (${reported}), and no witness reads from ceph-rbd which addresses hold its images`;

  it('refuses a bare-metal node without a witness, saying the blocklist would rest on its own word alone', () => {
    expect(checkFence(witnessRequired, bareMetal({}))).toEqual(
      expect.objectContaining({
        phase: 'Refused',
        action: null,
        reason: 'WitnessRequired',
        evidence: [noMachine, coversOnly(NODE_IP)],
      }),
    );
  });

  it('names every address and declared range the blocklist would cover, or that the node reports none', () => {
    const spec = bareMetal({ addresses: [NODE_IP, '10.0.2.23'], declared: ['10.9.0.0/24', '10.9.1.5'] });
    expect(checkFence(witnessRequired, spec)).toMatchObject({
      evidence: [noMachine, coversOnly(`${NODE_IP}, 10.0.2.23; declared 10.9.0.0/24, 10.9.1.5`)],
    });
    expect(checkFence(witnessRequired, bareMetal({ addresses: [] }))).toMatchObject({
      evidence: [noMachine, coversOnly('no address')],
    });
  });

  it('refuses when the witness read none of the node’s images, saying so first', () => {
    const spec = bareMetal({ holders: witnessed(0, [], []) });
    expect(checkFence(witnessRequired, spec)).toMatchObject({
      reason: 'WitnessRequired',
      evidence: [
        `${SOURCE} read none of node ${NODE}'s images: no attachment or PersistentVolume names one it can read`,
        noMachine,
        coversOnly(NODE_IP),
      ],
    });
  });

  it('refuses when the kubelet reports images in use the witness could not read, naming each', () => {
    const spec = bareMetal({
      holders: witnessed(0, [holder(NODE_IP)]),
      unwitnessed: ['pv-old-1', 'pv-old-2'],
    });
    expect(checkFence(witnessRequired, spec)).toMatchObject({
      reason: 'WitnessRequired',
      evidence: [
        `the witness could not read pv-old-1, pv-old-2, reported in use by node ${NODE}'s kubelet: no PersistentVolume names it any more`,
        noMachine,
        coversOnly(NODE_IP),
      ],
    });
  });

  it('lets a bare-metal node through once the witness read its images, holders or not', () => {
    expect(checkFence(witnessRequired, bareMetal({ holders: witnessed(0, [holder(NODE_IP)]) }))).toEqual(
      Compliant,
    );
    expect(checkFence(witnessRequired, bareMetal({ holders: witnessed(0, []), unwitnessed: [] }))).toEqual(
      Compliant,
    );
  });

  it('does not apply to a node with a machine to power off, nor once the run has committed', () => {
    expect(checkFence(witnessRequired, imageNode({}))).toEqual(NotApplicable);
    // Committed to a storage-only fence: the plan and the witnessed addresses are fixed.
    expect(checkFence(witnessRequired, imageNode({}, 20), aRequest(), storageCommittedHistory())).toEqual(
      NotApplicable,
    );
  });
});

describe('watchers-gone (SAFETY.md rule 1)', () => {
  /** A storage-only run whose blocklist was proven at t(20) on the node's InternalIP. */
  const proven = (): RunHistory => ({ ...storageCommittedHistory(), storageProof: aBlocklist(20, true) });
  const listed = (holders: ImageHolder[]) =>
    imageNode({ blocklist: { ok: true, value: aBlocklist(30, true) }, holders: witnessed(30, holders) }, 30);

  it('holds the release while a watcher remains at a fenced address, naming each one', () => {
    const left = [holder(NODE_IP, 'client.1', 'rbd/a'), holder(NODE_IP, 'client.2', 'rbd/b')];
    expect(checkFence(watchersGone, listed([...left, holder('10.0.1.99')]), aRequest(), proven())).toEqual(
      expect.objectContaining({
        phase: 'Taint',
        action: null,
        waitSeconds: PollSeconds.ConfirmOff,
        reason: 'WatchersRemain',
        message: 'The blocklist is confirmed; waiting for the OSDs to drop the fenced watchers.',
        evidence: [
          `${SOURCE} at ${t(30)}: rbd/a watched by client.1 at ${NODE_IP}; rbd/b watched by client.2 at ${NODE_IP}`,
        ],
      }),
    );
  });

  it('lets the release go on once no watcher is left at a fenced address', () => {
    expect(checkFence(watchersGone, listed([holder('10.0.1.99')]), aRequest(), proven())).toEqual(Compliant);
    expect(checkFence(watchersGone, listed([]), aRequest(), proven())).toEqual(Compliant);
  });

  it('does not apply before the blocklist is proven, nor without a witness', () => {
    // Committed, the blocklist not listed yet: no proof, from the history or from this observation.
    const unlisted = imageNode({ holders: witnessed(30, [holder(NODE_IP)]) }, 30);
    expect(checkFence(watchersGone, unlisted, aRequest(), storageCommittedHistory())).toEqual(NotApplicable);
    expect(checkFence(watchersGone, imageNode({}, 30), aRequest(), proven())).toEqual(NotApplicable);
  });
});
