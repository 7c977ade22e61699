/**
 * What the release rules say and record: the messages of each release step (counts and names of what
 * is deleted), the fence record's proof and blocklist for a node fenced at both layers, and the texts
 * of a stale record. The record is what un-fence and the operator later read back.
 */
import { describe, expect, it } from 'vitest';
import {
  accelerateForceDelete,
  addTaint,
  clearStaleRecord,
  drained,
  legacyDeletePods,
  legacyDeleteVolumeAttachments,
  stillOff,
  toleratingPods,
} from '../../../../lib/domain/rules/release.js';
import {
  aPod,
  aRequest,
  aVolumeAttachment,
  checkFence,
  DATA_DISK,
  INSTANCE,
  OUR_RECORD,
  provenHistory,
  ROOT_DISK,
  stopped,
  t,
  taintedHistory,
  taintedNode,
} from '../support/fixtures.js';
import { aBlocklist, aStorage, ENTRY, IMAGE, RANGE } from '../support/storage.js';

const drainSpec = (pods = [aPod('db-0'), aPod('db-1')]) => ({
  at: 60,
  power: stopped(60),
  node: taintedNode(),
  pods,
});

describe('still-off', () => {
  it('names the state the instance is in now', () => {
    expect(
      checkFence(stillOff, { at: 60, power: { state: 'pending' } }, aRequest(), provenHistory()),
    ).toMatchObject({
      phase: 'Taint',
      message:
        'Proof of off is held, but the instance is pending now; releasing nothing until it shows off again.',
    });
  });
});

describe('add-taint', () => {
  it('says it taints the node', () => {
    expect(checkFence(addTaint, { at: 60, power: stopped(60) }, aRequest(), provenHistory())).toMatchObject({
      message: 'The instance is proven off; tainting node worker-1 out-of-service.',
      action: { record: { proof: 'stopped', instanceId: 'i-0123456789abcdef0' } },
    });
  });

  it('records both proofs, and only the blocklist entries this run added, on a node fenced at both layers', () => {
    const other = { kind: 'range', entry: '10.0.9.9/32', source: 'configured range 10.0.9.9/32' } as const;
    const listed = {
      ...aBlocklist(30, true),
      expected: [ENTRY, other],
      found: [
        { ...ENTRY, until: t(4000) },
        { ...other, until: t(4000) },
      ],
    };
    const history = {
      ...provenHistory(),
      isolation: { machine: true, storage: true, watch: false },
      storageBefore: ['10.0.9.9/32'],
      storageProof: listed,
    };
    const spec = { at: 60, power: stopped(60), storage: aStorage(listed), volumeAttachments: [IMAGE] };
    const verdict = checkFence(addTaint, spec, aRequest(), history);
    expect(verdict).toMatchObject({
      action: { record: { proof: 'stopped and blocklisted', blocklist: [RANGE] } },
    });
  });

  it('says so when it re-records its own taint left by an earlier run', () => {
    const node = taintedNode({ fenceRecord: { ...OUR_RECORD, runId: 'run-0' } });
    expect(
      checkFence(addTaint, { at: 60, power: stopped(60), node }, aRequest(), provenHistory()),
    ).toMatchObject({
      message:
        "The instance is proven off; node worker-1 already carries the fencer's taint, recording this run as its owner.",
    });
  });
});

describe("the fence record names the proof in the provider's words, and no machine on bare metal", () => {
  it("uses the provider's own state name when it gave one", () => {
    const proofOfOff = {
      instanceId: INSTANCE,
      state: 'stopped',
      providerState: 'Stopped',
      observedAt: t(40),
    } as const;
    const history = { ...provenHistory(), proofOfOff };
    expect(checkFence(addTaint, { at: 60, power: stopped(60) }, aRequest(), history)).toMatchObject({
      action: { record: { proof: 'Stopped' } },
    });
  });

  it('records no instance for a node fenced at the storage layer only', () => {
    const history = {
      ...provenHistory(),
      target: { node: 'worker-1', nodeUid: 'uid-worker-1', provider: null, instanceId: '' },
      isolation: { machine: false, storage: true, watch: false },
      proofOfOff: null,
      storageProof: aBlocklist(30, true),
    };
    const bare = {
      at: 60,
      node: { providerId: null },
      instance: { resolved: false, problem: 'missing', detail: '' },
      storage: aStorage(aBlocklist(60, true)),
      volumeAttachments: [IMAGE],
    } as const;
    expect(checkFence(addTaint, bare, aRequest(), history)).toMatchObject({
      action: { record: { instanceId: '', proof: 'blocklisted', blocklist: [RANGE] } },
    });
  });
});

describe('clear-stale-record', () => {
  it('names the run and the taint of the stale record', () => {
    const node = { outOfServiceTaints: [], fenceRecord: { ...OUR_RECORD, runId: 'run-0' } };
    expect(
      checkFence(clearStaleRecord, { at: 60, power: stopped(60), node }, aRequest(), provenHistory()),
    ).toMatchObject({
      action: { kind: 'clear-fence-record', fenceRunId: 'run-0' },
      message: 'Clearing a stale fence record of run run-0: its taint is no longer on node worker-1.',
      evidence: [
        'fence record names node.kubernetes.io/out-of-service=nodeshutdown:NoExecute (added 2026-03-01T10:00:45Z), which is gone',
      ],
    });
  });
});

describe('the release steps count what they delete', () => {
  it('legacy: pods, then VolumeAttachments', () => {
    expect(
      checkFence(legacyDeletePods, drainSpec(), aRequest({ strategy: 'legacy' }), taintedHistory()),
    ).toMatchObject({
      message: 'Force-deleting 2 pods on the fenced node.',
      evidence: [],
    });
    const spec = {
      ...drainSpec([]),
      cluster: { serverVersion: { major: 1, minor: 25 } },
      volumeAttachments: [aVolumeAttachment('csi-db-0'), aVolumeAttachment('csi-db-1')],
    };
    expect(checkFence(legacyDeleteVolumeAttachments, spec, aRequest(), taintedHistory())).toMatchObject({
      message: 'Deleting 2 VolumeAttachments of the fenced node.',
      evidence: [],
      action: {
        volumeAttachments: [
          { namespace: null, name: 'csi-db-0' },
          { namespace: null, name: 'csi-db-1' },
        ],
      },
    });
  });

  it('accelerate: the terminating pods', () => {
    const pods = [aPod('db-0', { terminating: true }), aPod('db-1', { terminating: true })];
    expect(
      checkFence(accelerateForceDelete, drainSpec(pods), aRequest({ accelerate: true }), taintedHistory()),
    ).toMatchObject({
      message: 'Force-deleting 2 terminating pods on the fenced node.',
      evidence: [],
    });
  });

  it('tolerating pods: every pod and claim, and the opt-in named', () => {
    const pods = [
      aPod('keeper-0', { toleratesOutOfService: true, claimNames: ['data-a', 'data-b'] }),
      aPod('keeper-1', { toleratesOutOfService: true }),
    ];
    expect(checkFence(toleratingPods, drainSpec(pods), aRequest(), taintedHistory())).toMatchObject({
      evidence: [
        'pod db/keeper-0 tolerates the out-of-service taint and holds data-a, data-b',
        'pod db/keeper-1 tolerates the out-of-service taint and holds data-keeper-1',
        'The instance is proven off and the node tainted; delete db/keeper-0, db/keeper-1 with grace period 0 (or rerun with the opt-in to force-delete tolerating pods) to release their volumes.',
      ],
    });
    expect(
      checkFence(
        toleratingPods,
        drainSpec(pods),
        aRequest({ forceDeleteTolerating: true }),
        taintedHistory(),
      ),
    ).toMatchObject({
      message: 'Force-deleting 2 pods that tolerate the taint (as asked); the instance is proven off.',
      evidence: [
        'pod db/keeper-0 tolerates the out-of-service taint and holds data-a, data-b',
        'pod db/keeper-1 tolerates the out-of-service taint and holds data-keeper-1',
      ],
    });
  });
});

describe('drained', () => {
  it('counts a detached data disk as gone, and names every pod that stays bound without a volume', () => {
    const pods = [aPod('agent-0', { claimNames: [] }), aPod('agent-1', { claimNames: [] })];
    const spec = {
      ...drainSpec(pods),
      volumeAttachments: [],
      disks: [ROOT_DISK, { ...DATA_DISK, state: 'detached' }],
    } as const;
    expect(checkFence(drained, spec, aRequest(), taintedHistory())).toMatchObject({
      phase: 'Fenced',
      message:
        'Node worker-1 is fenced: instance off, no pod holds a volume, no VolumeAttachment or disk left. Still bound to it: pod db/agent-0 (holds no volume), pod db/agent-1 (holds no volume).',
    });
  });
});
