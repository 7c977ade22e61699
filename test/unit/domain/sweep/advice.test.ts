/**
 * What each sweep finding advises (`nextAction`): the safe next step for the case, and never an
 * automatic one outside SAFETY.md rule 5. The advice is built from a draft, the provider cross-check and
 * the index, so each branch is checked here with the facts that select it.
 */
import { describe, expect, it } from 'vitest';
import { NO_PROBE } from '../../../../lib/domain/sweep/cross-check.js';
import type { FindingDraft } from '../../../../lib/domain/sweep/finding.js';
import { noAttachCapacity } from '../../../../lib/domain/sweep/rules/no-attach-capacity.js';
import { noHealthyNodeInPvZone } from '../../../../lib/domain/sweep/rules/no-healthy-node-in-pv-zone.js';
import { scImmediateBinding } from '../../../../lib/domain/sweep/rules/sc-immediate-binding.js';
import { taintLeftBehind } from '../../../../lib/domain/sweep/rules/taint-left-behind.js';
import { targetAttachStuck } from '../../../../lib/domain/sweep/rules/target-attach-stuck.js';
import { vaStuckDeleting } from '../../../../lib/domain/sweep/rules/va-stuck-deleting.js';
import { aNode, aPv, aVa, crossCheck, disk, world } from './support.js';

const draft = (over: Partial<FindingDraft>): FindingDraft =>
  ({ key: 'x', summary: '', objects: [], evidence: [], probe: NO_PROBE, ...over }) as FindingDraft;

describe('NO_ATTACH_CAPACITY advice', () => {
  it('asks for attach capacity for the Pending pod, by hand', () => {
    expect(noAttachCapacity.advise(draft({ key: 'default/db-0' }), null, world())).toEqual({
      kind: 'add-attach-capacity',
      description: expect.stringMatching(
        /^Add a node in the volume's zone .*; then default\/db-0 can be scheduled\. Check that CSINode allocatable\.count/,
      ),
      automatic: false,
    });
  });
});

describe('NO_HEALTHY_NODE_IN_PV_ZONE advice', () => {
  it('names the zones the disk cannot leave', () => {
    const index = world({ persistentVolumes: [aPv('pv-1', { zones: ['us-east-1a', 'us-east-1b'] })] });
    expect(noHealthyNodeInPvZone.advise(draft({ key: 'pv-1' }), null, index)).toEqual({
      kind: 'restore-zone',
      description: expect.stringMatching(
        /^The disk cannot move out of us-east-1a, us-east-1b\. Bring a node in us-east-1a, us-east-1b back .*fencing alone will not let this pod start\.$/,
      ),
      automatic: false,
    });
  });

  it('says "its zone" for a PV it no longer finds', () => {
    expect(noHealthyNodeInPvZone.advise(draft({ key: 'pv-9' }), null, world()).description).toMatch(
      /^The disk cannot move out of its zone\. Bring a node in its zone back/,
    );
  });
});

describe('SC_IMMEDIATE_BINDING advice', () => {
  it('asks to re-create the StorageClass with WaitForFirstConsumer, by hand', () => {
    expect(scImmediateBinding.advise(draft({ key: 'gp3' }), null, world())).toEqual({
      kind: 'fix-storage-class',
      description: expect.stringMatching(
        /^Re-create StorageClass gp3 with volumeBindingMode: WaitForFirstConsumer/,
      ),
      automatic: false,
    });
  });
});

describe('TAINT_LEFT_BEHIND advice', () => {
  const oos = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };

  it('never removes a taint that is not the fencer’s: it says how to, by hand, with the provider’s word', () => {
    const index = world({ nodes: [aNode('node-c', { taints: [oos] })] });
    const cross = crossCheck({ 'i-0c': 'running' });
    expect(taintLeftBehind.advise(draft({ key: 'node-c' }), cross, index)).toEqual({
      kind: 'investigate',
      description: expect.stringMatching(
        /^The taint is not the fencer's, so the fencer never removes it\..* Provider: instance i-0c: running\.$/,
      ),
      command: 'kubectl taint nodes node-c node.kubernetes.io/out-of-service-',
      automatic: false,
    });
  });

  it('un-fences its own taint after a power cycle, quoting the provider when it answered', () => {
    const node = aNode('node-c', { taints: [oos], annotations: { 'kube-fencer.io/fence-record': '{}' } });
    const index = world({ nodes: [node] });
    expect(
      taintLeftBehind.advise(draft({ key: 'node-c' }), crossCheck({ 'i-0c': 'running' }), index),
    ).toEqual({
      kind: 'unfence-node',
      description:
        "Remove the fencer's taint once the instance shows a power cycle after the fence. Provider: instance i-0c: running.",
      command: 'fencer unfence node-c',
      automatic: false,
    });
    expect(taintLeftBehind.advise(draft({ key: 'node-c' }), null, index).description).toBe(
      "Remove the fencer's taint once the instance shows a power cycle after the fence.",
    );
  });

  it('treats a node it cannot find as not the fencer’s', () => {
    expect(taintLeftBehind.advise(draft({ key: 'node-z' }), null, world()).kind).toBe('investigate');
  });
});

describe('TARGET_ATTACH_STUCK advice', () => {
  const failing = (message: string) =>
    aVa('va-new', { nodeName: 'node-b', attached: false, attachError: { message } });
  const stuck = (objects: FindingDraft['objects'] = []) =>
    draft({ key: 'va-new', objects: [{ kind: 'VolumeAttachment', name: 'va-new' }, ...objects] });

  it('sends an out-of-slots node to attach capacity', () => {
    const index = world({ volumeAttachments: [failing('AttachVolume: ResourceExhausted: volume limit')] });
    expect(targetAttachStuck.advise(stuck(), null, index)).toEqual({
      kind: 'add-attach-capacity',
      description: 'Node node-b is out of attach slots: move a volume off it or let the pod land elsewhere.',
      command: 'kubectl describe volumeattachment va-new',
      automatic: false,
    });
  });

  it('otherwise points at the attach error and the CSI controller, even with a Ready holder', () => {
    const holder = aVa('va-old', { nodeName: 'node-a' });
    const index = world({ volumeAttachments: [holder, failing('rpc error: code = Internal')] });
    const advice = targetAttachStuck.advise(
      stuck([{ kind: 'VolumeAttachment', name: 'va-old' }]),
      null,
      index,
    );
    expect(advice).toEqual({
      kind: 'investigate',
      description: expect.stringMatching(/^Read the attachError and the CSI controller logs/),
      command: 'kubectl describe volumeattachment va-new',
      automatic: false,
    });
  });

  it('fences the NotReady node of the holder, by name', () => {
    const holder = aVa('va-old', { nodeName: 'node-a' });
    const index = world({
      nodes: [aNode('node-a', { ready: 'False' }), aNode('node-b')],
      volumeAttachments: [holder, failing('Multi-Attach')],
    });
    expect(
      targetAttachStuck.advise(stuck([{ kind: 'VolumeAttachment', name: 'va-old' }]), null, index),
    ).toEqual({
      kind: 'fence-node',
      description: 'The disk is still held by va-old on NotReady node node-a: fence that node to release it.',
      command: 'fencer fence node-a',
      automatic: false,
    });
  });
});

describe('VA_STUCK_DELETING advice', () => {
  const deleting = draft({ key: 'va-1', probe: { instances: [], disks: [{ volumeId: 'vol-pv-1' }] } });

  it('says the finalizer may go by hand only once the provider shows the disk detached', () => {
    const advice = vaStuckDeleting.advise(deleting, crossCheck({}, [disk('vol-pv-1')]), world());
    expect(advice).toEqual({
      kind: 'wait',
      description: expect.stringMatching(
        /^The provider shows the disk detached, .*removing the finalizer of va-1 by hand is safe only now\.$/,
      ),
      command: 'kubectl describe volumeattachment va-1',
      automatic: false,
    });
  });

  it('names the machine a live attachment is on', () => {
    const cross = crossCheck({ 'i-1': 'stopping' }, [disk('vol-pv-1', ['i-1'])]);
    expect(vaStuckDeleting.advise(deleting, cross, world()).description).toMatch(
      /^The disk is still attached to i-1, which is not proven off: /,
    );
  });

  it('touches nothing when the provider could not say where the disk is', () => {
    for (const cross of [null, crossCheck({})]) {
      expect(vaStuckDeleting.advise(deleting, cross, world())).toEqual({
        kind: 'investigate',
        description: expect.stringMatching(
          /^The provider could not say where the disk is attached; .*finalizer\.$/,
        ),
        automatic: false,
      });
    }
    expect(vaStuckDeleting.advise(draft({ key: 'va-1' }), null, world()).kind).toBe('investigate');
  });
});
