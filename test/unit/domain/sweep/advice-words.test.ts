/**
 * The advice of each sweep finding in full, for the branches advice.test.ts checks by kind: the words
 * an operator reads before acting, the command offered, and that nothing outside SAFETY.md rule 5 is
 * automatic. Also the cross-check's own summary of what it could not learn.
 */
import { describe, expect, it } from 'vitest';
import {
  type CrossCheck,
  classify,
  conclude,
  crossCheckFault,
  describeDiskFact,
} from '../../../../lib/domain/sweep/index.js';
import { scImmediateBinding } from '../../../../lib/domain/sweep/rules/sc-immediate-binding.js';
import { targetAttachStuck } from '../../../../lib/domain/sweep/rules/target-attach-stuck.js';
import { vaNodeMissing } from '../../../../lib/domain/sweep/rules/va-node-missing.js';
import { vaOnNotReadyNode } from '../../../../lib/domain/sweep/rules/va-on-not-ready-node.js';
import { vaPvMissing } from '../../../../lib/domain/sweep/rules/va-pv-missing.js';
import { vaStuckDeleting } from '../../../../lib/domain/sweep/rules/va-stuck-deleting.js';
import { ago, aNode, aVa, crossCheck, disk, world } from './support.js';

const HOLDER = 'i-0aaaaaaaaaaaaaaa1';
const fault = { name: 'ProviderApiError', message: 'Rate exceeded' };

describe('VA_ON_NOTREADY_NODE advice', () => {
  const down = (over: Parameters<typeof aNode>[1] = {}) =>
    aNode('node-a', { ready: 'Unknown', readySince: ago(600), ...over });
  const advise = (node: ReturnType<typeof aNode>, cross: CrossCheck | null = null) => {
    const index = world({ nodes: [node] });
    const verdict = vaOnNotReadyNode.check(node, index);
    if (verdict.kind !== 'finding') throw new Error('expected a finding');
    return vaOnNotReadyNode.advise(verdict.draft, cross, index);
  };

  it('fences automatically, quoting the provider', () => {
    expect(advise(down(), crossCheck({ [HOLDER]: 'running' }))).toEqual({
      kind: 'fence-node',
      description: `Fence node node-a: prove its instance off through the provider, then taint it out-of-service (instance ${HOLDER}: running).`,
      command: 'fencer fence node-a',
      automatic: true,
    });
  });

  it('fences by hand a node that opted out, or a control-plane node, and says why', () => {
    expect(advise(down({ annotations: { 'kube-fencer.io/opt-out': 'true' } }))).toEqual({
      kind: 'fence-node',
      description:
        'Fence node node-a: prove its instance off through the provider, then taint it out-of-service. ' +
        'The node opted out of fencing (kube-fencer.io/opt-out): fence it by hand after confirming it is off.',
      command: 'fencer fence node-a',
      automatic: false,
    });
    const controlPlane = down({ labels: { 'node-role.kubernetes.io/control-plane': '' } });
    expect(advise(controlPlane)).toMatchObject({
      description:
        'Fence node node-a: prove its instance off through the provider, then taint it out-of-service. ' +
        'It is a control-plane node: fencing needs --allow-control-plane.',
      automatic: false,
    });
  });

  it('fences automatically a node no longer in the index (the fence use case re-checks it)', () => {
    const index = world({ nodes: [] });
    const draft = classifyOne(down());
    expect(vaOnNotReadyNode.advise(draft, null, index).automatic).toBe(true);
  });
});

function classifyOne(node: ReturnType<typeof aNode>) {
  const verdict = vaOnNotReadyNode.check(node, world({ nodes: [node] }));
  if (verdict.kind !== 'finding') throw new Error('expected a finding');
  return verdict.draft;
}

describe('VA_STUCK_DELETING advice', () => {
  const va = aVa('va-1', { deletionTimestamp: ago(900) });
  const index = world({ volumeAttachments: [va] });
  const advise = (cross: CrossCheck | null) => {
    const verdict = vaStuckDeleting.check(va, index);
    if (verdict.kind !== 'finding') throw new Error('expected a finding');
    return vaStuckDeleting.advise(verdict.draft, cross, index);
  };

  it('never removes the finalizer while a machine not proven off holds the disk', () => {
    expect(advise(crossCheck({ [HOLDER]: 'running' }, [disk('vol-pv-1', [HOLDER])]))).toEqual({
      kind: 'investigate',
      description:
        `The disk is still attached to ${HOLDER}, which is not proven off: a detach from a live, mounted machine sticks (EBS "busy"). ` +
        'Fence that machine rather than force-detaching; never remove the finalizer now.',
      automatic: false,
    });
  });

  it('waits, by hand, when every holder is off', () => {
    const other = 'i-0bbbbbbbbbbbbbbb2';
    const cross = crossCheck({ [HOLDER]: 'stopped', [other]: 'terminated' }, [
      disk('vol-pv-1', [HOLDER, other]),
    ]);
    expect(advise(cross)).toEqual({
      kind: 'wait',
      description:
        `The disk is still attached to ${HOLDER}, ${other}, which the provider reports off: a detach from a machine that is ` +
        "off completes, so the attacher's next retry should drop its finalizer. If its detachError persists, " +
        'detach the disk through the provider; only once the provider shows it detached is removing the finalizer of va-1 by hand safe.',
      command: 'kubectl describe volumeattachment va-1',
      automatic: false,
    });
  });

  it('waits, by hand, when the provider shows the disk detached', () => {
    expect(advise(crossCheck({}, [disk('vol-pv-1')]))).toEqual({
      kind: 'wait',
      description:
        'The provider shows the disk detached, so the attacher should drop its finalizer on its next retry. ' +
        'If it does not, read its detachError; removing the finalizer of va-1 by hand is safe only now.',
      command: 'kubectl describe volumeattachment va-1',
      automatic: false,
    });
  });

  it('investigates when the provider could not say', () => {
    const unknown: CrossCheck = {
      instances: [],
      disks: [{ volumeId: 'vol-pv-1', disk: { ok: false, error: fault } }],
      unresolved: [],
    };
    expect(advise(unknown)).toEqual({
      kind: 'investigate',
      description:
        'The provider could not say where the disk is attached; check the attacher logs and the provider before touching the finalizer.',
      automatic: false,
    });
  });
});

describe('VA_NODE_MISSING advice', () => {
  const va = aVa('va-z', { nodeName: 'node-z', csiNodeId: HOLDER });
  const index = world({ volumeAttachments: [va] });
  const verdict = vaNodeMissing.check(va, index);
  const draft = verdict.kind === 'finding' ? verdict.draft : (undefined as never);

  it('deletes with the proof, and says how by hand', () => {
    expect(vaNodeMissing.advise(draft, crossCheck({}, [disk('vol-pv-1')]), index)).toEqual({
      kind: 'delete-volume-attachment',
      description:
        'Delete VolumeAttachment va-z: its node is gone and the provider reports disk vol-pv-1 available and attached nowhere.',
      command: 'fencer sweep --remediate   # or: kubectl delete volumeattachment va-z',
      automatic: true,
    });
  });

  it('asks to power off the holder first when the provider answered, and to find the disk when it did not', () => {
    const running = crossCheck({ [HOLDER]: 'running' }, [disk('vol-pv-1', [HOLDER])]);
    expect(vaNodeMissing.advise(draft, running, index)).toEqual({
      kind: 'investigate',
      description:
        `Do not delete VolumeAttachment va-z yet (DiskAttachedToLiveInstance): disk vol-pv-1 is attached to ${HOLDER}, which is not proven off (instance ${HOLDER}: running). ` +
        'Power off the machine that holds the disk through the provider first; the next sweep re-checks.',
      automatic: false,
    });
    expect(vaNodeMissing.advise(draft, null, index).description).toBe(
      'Do not delete VolumeAttachment va-z yet (DiskStateUnavailable): disk vol-pv-1 was not cross-checked. ' +
        'Establish at the provider where the disk is attached before touching the attachment.',
    );
    const noDisk = { ...draft, probe: { ...draft.probe, disks: [] } };
    expect(vaNodeMissing.advise(noDisk, null, index).description).toMatch(
      /\(DiskUnknown\): .*\. Establish at the provider where the disk is attached before touching the attachment\.$/,
    );
  });
});

describe('VA_PV_MISSING advice', () => {
  it('leaves the deletion to a person, after the provider confirms the detach', () => {
    const va = aVa('va-2', { persistentVolumeName: 'pv-gone' });
    const index = world({ volumeAttachments: [va] });
    const verdict = vaPvMissing.check(va, index);
    if (verdict.kind !== 'finding') throw new Error('expected a finding');
    expect(vaPvMissing.advise(verdict.draft, null, index)).toEqual({
      kind: 'investigate',
      description:
        'The fencer does not delete va-2 while its node exists. Confirm at the provider that the disk is ' +
        'detached from that node, then delete the VolumeAttachment by hand (no finalizer: it goes at once).',
      command: 'kubectl delete volumeattachment va-2',
      automatic: false,
    });
  });
});

describe('SC_IMMEDIATE_BINDING advice', () => {
  it('says why the class must be re-created, and what happens to existing volumes', () => {
    expect(scImmediateBinding.advise({ key: 'gp3' } as never, null, world()).description).toBe(
      'Re-create StorageClass gp3 with volumeBindingMode: WaitForFirstConsumer (the field is immutable), ' +
        'so each volume is created in the zone its first pod is scheduled to. Existing volumes keep their zone.',
    );
  });
});

describe('TARGET_ATTACH_STUCK advice', () => {
  it('investigates when the holder’s node is gone (nothing left to fence)', () => {
    const stuck = aVa('va-new', {
      nodeName: 'node-b',
      attached: false,
      attachError: { message: 'Multi-Attach' },
    });
    const holder = aVa('va-old', { nodeName: 'node-z' });
    const index = world({ volumeAttachments: [holder, stuck] });
    const verdict = targetAttachStuck.check(stuck, index);
    if (verdict.kind !== 'finding') throw new Error('expected a finding');
    expect(targetAttachStuck.advise(verdict.draft, null, index)).toEqual({
      kind: 'investigate',
      description:
        'Read the attachError and the CSI controller logs; the fencing (if any) is done, this is a downstream blocker.',
      command: 'kubectl describe volumeattachment va-new',
      automatic: false,
    });
  });
});

describe('crossCheckFault', () => {
  it('says nothing without a cross-check, or when every question got an answer', () => {
    expect(crossCheckFault(null)).toBeUndefined();
    expect(crossCheckFault(crossCheck({ [HOLDER]: 'running' }, [disk('vol-1')]))).toBeUndefined();
  });

  it('names each machine and disk the provider could not answer for, and what it could not resolve', () => {
    const cross: CrossCheck = {
      instances: [
        { instanceId: HOLDER, power: { ok: false, error: fault } },
        ...crossCheck({ 'i-0ok': 'running' }).instances,
      ],
      disks: [{ volumeId: 'vol-1', disk: { ok: false, error: { name: 'AccessDenied', message: 'no' } } }],
      unresolved: ['gce://p/z/vm: no provider configured'],
    };
    expect(crossCheckFault(cross)).toBe(
      `instance ${HOLDER}: ProviderApiError; disk vol-1: AccessDenied; gce://p/z/vm: no provider configured`,
    );
  });
});

describe('describeDiskFact', () => {
  it('lists every live attachment of a disk', () => {
    expect(
      describeDiskFact({ volumeId: 'vol-1', disk: { ok: true, value: disk('vol-1', ['i-1', 'i-2']) } }),
    ).toBe('disk vol-1: in-use, attached to i-1, attached to i-2');
  });
});

describe('conclude', () => {
  it('refuses a finding of a class no rule raises', () => {
    const [draft] = classify(world({ volumeAttachments: [aVa('va-z', { nodeName: 'node-z' })] }));
    if (!draft) throw new Error('expected a finding');
    expect(() => conclude({ ...draft, class: 'NO_SUCH_CLASS' as never }, null, world())).toThrow(
      'no sweep rule for class NO_SUCH_CLASS',
    );
  });
});
