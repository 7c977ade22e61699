import { describe, expect, it } from 'vitest';
import { NotApplicable } from '../../../../lib/domain/index.js';
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
  committedHistory,
  DATA_DISK,
  fault,
  OUR_RECORD,
  OUR_TAINT,
  provenHistory,
  ROOT_DISK,
  RUN,
  stopped,
  THEIR_TAINT,
  t,
  taintedHistory,
  taintedNode,
} from '../support/fixtures.js';

const v125 = { serverVersion: { major: 1, minor: 25 } };
const drainedWorld = { pods: [], volumeAttachments: [], disks: [ROOT_DISK] };

describe('still-off (SAFETY.md rules 1 and 2)', () => {
  it('does not apply without proof of off', () => {
    expect(checkFence(stillOff, { at: 20 }, aRequest(), committedHistory())).toEqual(NotApplicable);
  });

  it('lets the release go on while the instance is still off', () => {
    expect(checkFence(stillOff, { at: 60, power: stopped(60) }, aRequest(), provenHistory())).toEqual(
      NotApplicable,
    );
  });

  it('releases nothing while the instance is shutting down again', () => {
    expect(
      checkFence(stillOff, { at: 60, power: { state: 'shutting-down' } }, aRequest(), provenHistory()),
    ).toMatchObject({
      phase: 'Taint',
      action: null,
    });
  });
});

describe('add-taint (SAFETY.md rules 1 and 6)', () => {
  it('does not apply without proof of off', () => {
    expect(
      checkFence(addTaint, { at: 20, power: { state: 'stopping' } }, aRequest(), committedHistory()),
    ).toEqual(NotApplicable);
  });

  it('taints with proof, conditional on the observed resourceVersion, recording ownership in the same write', () => {
    expect(checkFence(addTaint, { at: 60, power: stopped(60) }, aRequest(), provenHistory())).toMatchObject({
      phase: 'Taint',
      action: {
        kind: 'taint',
        expectedResourceVersion: '1000',
        taint: { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' },
        record: { runId: RUN, fencedAt: t(60) },
      },
    });
  });

  it('takes proof from this very observation when it is the first made after the decision', () => {
    expect(
      checkFence(addTaint, { at: 20, power: stopped(20) }, aRequest(), committedHistory()),
    ).toMatchObject({
      action: { kind: 'taint' },
    });
  });

  it('does not re-taint a node that already carries this run’s taint (re-entrant)', () => {
    expect(
      checkFence(addTaint, { at: 60, power: stopped(60), node: taintedNode() }, aRequest(), provenHistory()),
    ).toEqual(NotApplicable);
  });

  it('never claims an out-of-service taint someone else added', () => {
    const node = { outOfServiceTaints: [THEIR_TAINT] };
    expect(checkFence(addTaint, { at: 60, power: stopped(60), node }, aRequest(), provenHistory())).toEqual(
      NotApplicable,
    );
  });

  it('never claims an identical-looking taint added after its own was removed (the record is stale)', () => {
    const node = { outOfServiceTaints: [THEIR_TAINT], fenceRecord: { ...OUR_RECORD, runId: 'run-0' } };
    expect(checkFence(addTaint, { at: 60, power: stopped(60), node }, aRequest(), provenHistory())).toEqual(
      NotApplicable,
    );
  });

  it('adds its own NoExecute taint beside a NoSchedule one someone else added', () => {
    const node = { outOfServiceTaints: [{ ...THEIR_TAINT, effect: 'NoSchedule' }] };
    expect(
      checkFence(addTaint, { at: 60, power: stopped(60), node }, aRequest(), provenHistory()),
    ).toMatchObject({
      action: { kind: 'taint', taint: { effect: 'NoExecute', timeAdded: '2026-03-01T10:01:00Z' } },
    });
  });

  it('records the exact taint it writes, timeAdded included, in the same write', () => {
    const verdict = checkFence(addTaint, { at: 60, power: stopped(60) }, aRequest(), provenHistory());
    expect(verdict).toMatchObject({ kind: 'outcome' });
    const action = (verdict as { action: { taint: unknown; record: { taint: unknown } } }).action;
    expect(action.record.taint).toEqual(action.taint);
    expect(action.taint).toEqual({
      key: 'node.kubernetes.io/out-of-service',
      value: 'nodeshutdown',
      effect: 'NoExecute',
      timeAdded: '2026-03-01T10:01:00Z',
    });
  });

  it('re-records its own taint left by an earlier run, keeping that exact taint', () => {
    const node = taintedNode({ fenceRecord: { ...OUR_RECORD, runId: 'run-0', fencedAt: t(-900) } });
    expect(
      checkFence(addTaint, { at: 60, power: stopped(60), node }, aRequest(), provenHistory()),
    ).toMatchObject({
      action: { kind: 'taint', taint: OUR_TAINT, record: { runId: RUN, taint: OUR_TAINT } },
    });
  });
});

describe('clear-stale-record (SAFETY.md rule 6)', () => {
  const stale = { outOfServiceTaints: [], fenceRecord: { ...OUR_RECORD, runId: 'run-0' } };

  it('clears a record whose taint is gone, conditional on the node as read', () => {
    const node = { ...stale, outOfServiceTaints: [THEIR_TAINT] };
    expect(
      checkFence(clearStaleRecord, { at: 60, power: stopped(60), node }, aRequest(), provenHistory()),
    ).toMatchObject({
      reason: 'StaleFenceRecord',
      action: { kind: 'clear-fence-record', expectedResourceVersion: '1000', fenceRunId: 'run-0' },
    });
  });

  it('touches nothing before the proof, and nothing in a dry run', () => {
    expect(checkFence(clearStaleRecord, { node: stale })).toEqual(NotApplicable);
    expect(
      checkFence(
        clearStaleRecord,
        { at: 60, power: stopped(60), node: stale },
        aRequest({ dryRun: true }),
        provenHistory(),
      ),
    ).toEqual(NotApplicable);
  });

  it('leaves a record whose taint is there', () => {
    expect(
      checkFence(
        clearStaleRecord,
        { at: 60, power: stopped(60), node: taintedNode() },
        aRequest(),
        provenHistory(),
      ),
    ).toEqual(NotApplicable);
  });
});

describe('tolerating-pods (SAFETY.md rule 9)', () => {
  const keeper = aPod('keeper-0', { toleratesOutOfService: true });
  const spec = { at: 60, power: stopped(60), node: taintedNode(), pods: [keeper] };

  it('stops at once, naming the pod, its claims and the next step', () => {
    const verdict = checkFence(toleratingPods, spec, aRequest(), taintedHistory());
    expect(verdict).toMatchObject({ phase: 'Failed', reason: 'PodToleratesOutOfService', action: null });
    const { message, evidence } = verdict as unknown as { message: string; evidence: string[] };
    expect(message).toContain('db/keeper-0');
    expect(evidence.join('\n')).toContain('holds data-keeper-0');
  });

  it('force-deletes such pods, once proven off, when asked to', () => {
    expect(
      checkFence(toleratingPods, spec, aRequest({ forceDeleteTolerating: true }), taintedHistory()),
    ).toMatchObject({
      phase: 'Drain',
      action: { kind: 'force-delete-pods', pods: [{ name: 'keeper-0', uid: 'uid-keeper-0' }] },
    });
  });

  it('leaves tolerating pods that hold no volume, and the legacy path (which deletes them anyway)', () => {
    const noVolume = { ...spec, pods: [aPod('agent', { toleratesOutOfService: true, claimNames: [] })] };
    expect(checkFence(toleratingPods, noVolume, aRequest(), taintedHistory())).toEqual(NotApplicable);
    expect(checkFence(toleratingPods, spec, aRequest({ strategy: 'legacy' }), taintedHistory())).toEqual(
      NotApplicable,
    );
  });
});

describe('legacy-delete-pods', () => {
  const spec = {
    at: 60,
    power: stopped(60),
    node: taintedNode(),
    pods: [aPod('db-0'), aPod('web-1', { claimNames: [] })],
  };

  it('does not apply on the out-of-service path', () => {
    expect(checkFence(legacyDeletePods, spec, aRequest(), taintedHistory())).toEqual(NotApplicable);
  });

  it('force-deletes the pods that hold volumes on the legacy path, by uid', () => {
    expect(
      checkFence(legacyDeletePods, spec, aRequest({ strategy: 'legacy' }), taintedHistory()),
    ).toMatchObject({
      phase: 'Drain',
      action: { kind: 'delete-pods', pods: [{ namespace: 'db', name: 'db-0', uid: 'uid-db-0' }] },
    });
  });

  it('does nothing before the taint is seen', () => {
    const untainted = { ...spec, node: {} };
    expect(
      checkFence(legacyDeletePods, untainted, aRequest({ strategy: 'legacy' }), provenHistory()),
    ).toEqual(NotApplicable);
  });
});

describe('accelerate-force-delete', () => {
  const spec = {
    at: 60,
    power: stopped(60),
    node: taintedNode(),
    pods: [aPod('db-0', { terminating: true }), aPod('db-1')],
  };

  it('does not apply without accelerate', () => {
    expect(checkFence(accelerateForceDelete, spec, aRequest(), taintedHistory())).toEqual(NotApplicable);
  });

  it('force-deletes only the terminating pods with accelerate', () => {
    expect(
      checkFence(accelerateForceDelete, spec, aRequest({ accelerate: true }), taintedHistory()),
    ).toMatchObject({
      action: { kind: 'force-delete-pods', pods: [{ name: 'db-0' }] },
    });
  });
});

describe('legacy-delete-volume-attachments (SAFETY.md rule 5)', () => {
  const spec = { at: 60, power: stopped(60), node: taintedNode(), pods: [], cluster: v125 };

  it('deletes the VolumeAttachments on the legacy path of a 1.25 server once the pods are gone', () => {
    expect(checkFence(legacyDeleteVolumeAttachments, spec, aRequest(), taintedHistory())).toMatchObject({
      action: {
        kind: 'delete-volume-attachments',
        volumeAttachments: [{ name: 'csi-db-0', uid: 'uid-csi-db-0' }],
      },
    });
  });

  it('never deletes VolumeAttachments on the out-of-service path', () => {
    const on130 = { ...spec, cluster: { serverVersion: { major: 1, minor: 30 } } };
    expect(
      checkFence(
        legacyDeleteVolumeAttachments,
        on130,
        aRequest({ strategy: 'out-of-service' }),
        taintedHistory(),
      ),
    ).toEqual(NotApplicable);
  });

  it('never deletes VolumeAttachments on a server that supports the taint, even when legacy is asked for', () => {
    const on130 = { ...spec, cluster: { serverVersion: { major: 1, minor: 30 } } };
    expect(
      checkFence(legacyDeleteVolumeAttachments, on130, aRequest({ strategy: 'legacy' }), taintedHistory()),
    ).toEqual(NotApplicable);
  });

  it('waits for the pods first, or the attachment would be re-created', () => {
    expect(
      checkFence(
        legacyDeleteVolumeAttachments,
        { ...spec, pods: [aPod('db-0')] },
        aRequest(),
        taintedHistory(),
      ),
    ).toEqual(NotApplicable);
  });

  it('does not delete attachments already being deleted', () => {
    const deleting = { ...spec, volumeAttachments: [aVolumeAttachment('csi-db-0', { deleting: true })] };
    expect(checkFence(legacyDeleteVolumeAttachments, deleting, aRequest(), taintedHistory())).toEqual(
      NotApplicable,
    );
  });
});

describe('drained', () => {
  const base = { at: 60, power: stopped(60), node: taintedNode() };

  it('declares the node Fenced when no pod, attachment or data disk is left (the boot disk stays)', () => {
    expect(checkFence(drained, { ...base, ...drainedWorld }, aRequest(), taintedHistory())).toMatchObject({
      phase: 'Fenced',
      action: null,
    });
  });

  it('ignores pods that hold no volume and are not terminating', () => {
    const spec = {
      ...base,
      ...drainedWorld,
      pods: [aPod('node-exporter', { claimNames: [] })],
    };
    const verdict = checkFence(drained, spec, aRequest(), taintedHistory());
    expect(verdict).toMatchObject({ phase: 'Fenced' });
    // The report says what is still bound to the node.
    expect((verdict as { message: string }).message).toContain('db/node-exporter (holds no volume)');
  });

  it.each([
    ['a pod holds a volume', { pods: [aPod('db-0')] }],
    [
      'a VolumeAttachment remains',
      { volumeAttachments: [aVolumeAttachment('csi-db-0', { attached: false })] },
    ],
    ['a data disk is still attached', { disks: [ROOT_DISK, DATA_DISK] }],
    ['a data disk is detaching', { disks: [{ ...DATA_DISK, state: 'detaching' as const }] }],
  ])('waits in Drain when %s', (_, extra) => {
    expect(
      checkFence(drained, { ...base, ...drainedWorld, ...extra }, aRequest(), taintedHistory()),
    ).toMatchObject({
      phase: 'Drain',
      action: null,
    });
  });

  it('waits when the provider cannot list the disks', () => {
    expect(
      checkFence(drained, { ...base, ...drainedWorld, disks: fault() }, aRequest(), taintedHistory()),
    ).toMatchObject({
      phase: 'Drain',
      reason: 'ProviderApiError',
    });
  });

  it('never declares Fenced on a step that did not read the disks', () => {
    const verdict = checkFence(
      drained,
      { ...base, ...drainedWorld, disks: null },
      aRequest(),
      taintedHistory(),
    );
    expect(verdict).toMatchObject({
      phase: 'Drain',
      action: null,
      evidence: ['disks not read in this step'],
    });
  });

  it('names everything still tied to the node, in its own words', () => {
    const spec = {
      ...base,
      pods: [aPod('db-0', { terminating: true }), aPod('db-1')],
      volumeAttachments: [
        aVolumeAttachment('csi-db-0', { detachError: 'rpc error: timed out' }),
        aVolumeAttachment('csi-db-1', { attached: false }),
      ],
      disks: [ROOT_DISK, { ...DATA_DISK, state: 'detaching' as const }],
    };
    const verdict = checkFence(drained, spec, aRequest(), taintedHistory());
    const left = [
      'pod db/db-0 (terminating)',
      'pod db/db-1',
      'VolumeAttachment csi-db-0 (pv pv-csi-db-0, attached=true, detachError "rpc error: timed out")',
      'VolumeAttachment csi-db-1 (pv pv-csi-db-1, attached=false)',
      'disk vol-data detaching',
    ];
    expect(verdict).toMatchObject({
      phase: 'Drain',
      reason: null,
      evidence: left,
      message: `Waiting for node worker-1 to clear: ${left.join('; ')}.`,
    });
  });

  it('names the provider error, and throttling as such, when the disks cannot be listed', () => {
    const throttled = { ...fault('Rate exceeded'), throttled: true };
    const spec = { ...base, ...drainedWorld, disks: throttled };
    expect(checkFence(drained, spec, aRequest(), taintedHistory())).toMatchObject({
      phase: 'Drain',
      reason: 'ProviderThrottled',
      evidence: ['disks unknown: ProviderApiError: Rate exceeded'],
    });
  });

  it('says the node is fenced, and nothing more when nothing is bound to it', () => {
    expect(checkFence(drained, { ...base, ...drainedWorld }, aRequest(), taintedHistory())).toMatchObject({
      phase: 'Fenced',
      evidence: [],
      message:
        'Node worker-1 is fenced: instance off, no pod holds a volume, no VolumeAttachment or disk left.',
    });
  });

  it('fails when the node has not drained by the deadline', () => {
    expect(checkFence(drained, { ...base, at: 700 }, aRequest(), taintedHistory())).toMatchObject({
      phase: 'Failed',
      reason: 'DrainNotComplete',
    });
  });
});

describe('the release rules act only once every proof is held and the node carries the taint', () => {
  const v125Legacy = { cluster: v125 };
  // Each rule in a world where, releasing and tainted, it would act.
  const rules = [
    ['tolerating-pods', toleratingPods, { pods: [aPod('keeper-0', { toleratesOutOfService: true })] }, {}],
    [
      'accelerate-force-delete',
      accelerateForceDelete,
      { pods: [aPod('db-0', { terminating: true })] },
      { accelerate: true },
    ],
    ['legacy-delete-volume-attachments', legacyDeleteVolumeAttachments, { pods: [], ...v125Legacy }, {}],
    ['drained', drained, drainedWorld, {}],
  ] as const;

  it.each(rules)('%s acts once proven off and tainted', (_, rule, world, request) => {
    const spec = { at: 60, power: stopped(60), node: taintedNode(), ...world };
    expect(checkFence(rule, spec, aRequest(request), taintedHistory())).not.toEqual(NotApplicable);
  });

  it.each(rules)(
    '%s does nothing before the proof of off, even on a tainted node',
    (_, rule, world, request) => {
      const spec = { at: 20, node: taintedNode(), ...world };
      expect(checkFence(rule, spec, aRequest(request), committedHistory())).toEqual(NotApplicable);
    },
  );

  it.each(rules)(
    '%s does nothing with proof before the taint is seen on the node',
    (_, rule, world, request) => {
      const spec = { at: 60, power: stopped(60), node: {}, ...world };
      expect(checkFence(rule, spec, aRequest(request), provenHistory())).toEqual(NotApplicable);
    },
  );
});
