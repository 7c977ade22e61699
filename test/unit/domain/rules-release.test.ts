import { describe, expect, it } from 'vitest';
import { NotApplicable } from '../../../lib/domain/index.js';
import {
  accelerateForceDelete,
  addTaint,
  drained,
  legacyDeletePods,
  legacyDeleteVolumeAttachments,
  stillOff,
} from '../../../lib/domain/rules/release.js';
import {
  aPod,
  aRequest,
  aVolumeAttachment,
  checkFence,
  committedHistory,
  DATA_DISK,
  fault,
  provenHistory,
  ROOT_DISK,
  RUN,
  stopped,
  t,
  taintedHistory,
  taintedNode,
} from './support/fixtures.js';

const v125 = { serverVersion: { major: 1, minor: 25 } };
const drainedWorld = { pods: [], volumeAttachments: [], disks: [ROOT_DISK] };

describe('still-off (safety.md 1, 2)', () => {
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

describe('add-taint (safety.md 1, 6)', () => {
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
    const node = { outOfServiceTaint: { present: true, ownedByFencer: false } };
    expect(checkFence(addTaint, { at: 60, power: stopped(60), node }, aRequest(), provenHistory())).toEqual(
      NotApplicable,
    );
  });

  it('re-records its own taint left by an earlier run', () => {
    const node = taintedNode({
      fenceRecord: { runId: 'run-0', fencedAt: t(-900), instanceId: 'i-x', proof: 'stopped' },
    });
    expect(
      checkFence(addTaint, { at: 60, power: stopped(60), node }, aRequest(), provenHistory()),
    ).toMatchObject({
      action: { kind: 'taint', record: { runId: RUN } },
    });
  });
});

describe('legacy-delete-pods', () => {
  const spec = {
    at: 60,
    power: stopped(60),
    node: taintedNode(),
    pods: [aPod('db-0'), aPod('web-1', { usesPersistentVolumes: false })],
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

describe('legacy-delete-volume-attachments (safety.md 5)', () => {
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
      pods: [aPod('node-exporter', { usesPersistentVolumes: false })],
    };
    expect(checkFence(drained, spec, aRequest(), taintedHistory())).toMatchObject({ phase: 'Fenced' });
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

  it('fails when the node has not drained by the deadline', () => {
    expect(checkFence(drained, { ...base, at: 700 }, aRequest(), taintedHistory())).toMatchObject({
      phase: 'Failed',
      reason: 'DrainNotComplete',
    });
  });
});
