/**
 * The blocker rules when more than one thing is named, or when a fact is missing: every pod or zone is
 * listed, only the holder's own pods are called its users, and a rule that needs a fact says nothing
 * (or a placeholder) without it.
 */
import { describe, expect, it } from 'vitest';
import { SignalKind } from '../../../../lib/domain/diagnose/events.js';
import {
  holderOnDeadNode,
  holderOnLiveNode,
  podStuckTerminating,
} from '../../../../lib/domain/diagnose/holder-rules.js';
import { zoneDown } from '../../../../lib/domain/diagnose/placement-rules.js';
import { imageStillWatched } from '../../../../lib/domain/diagnose/storage-rules.js';
import { facts, node, pod, va, volume } from './support.js';

describe('pod-terminating-on-notready-node', () => {
  it('says nothing for a terminating pod that was never placed on a node', () => {
    expect(podStuckTerminating.check(facts([], pod({ terminating: true }), null))).toBeNull();
  });
});

describe('holder-on-notready-node', () => {
  it('waits on every pod still on the fenced node', () => {
    const stuck = [
      pod({ name: 'db-old', nodeName: 'node-a', terminating: true }),
      pod({ name: 'db-older', nodeName: 'node-a', terminating: true }),
    ];
    const v = volume([va(node('node-a', 'Unknown', 'fencer'))], { podsUsing: [...stuck, pod()] });
    expect(holderOnDeadNode.check(facts([v]), v)?.blocker?.summary).toMatch(
      /waiting for pod\(s\) default\/db-old, default\/db-older still on it$/,
    );
  });
});

describe('holder-on-ready-node', () => {
  it('calls only the pods on the holding node its users, and lists each of them', () => {
    const users = [
      pod({ name: 'db-old', nodeName: 'node-a', phase: 'Running' }),
      pod({ name: 'db-other', nodeName: 'node-a', phase: 'Running' }),
    ];
    const v = volume([va(node('node-a', 'True'))], { podsUsing: [...users, pod({ nodeName: 'node-c' })] });
    expect(holderOnLiveNode.check(facts([v]), v)?.blocker).toEqual({
      code: 'VolumeInUseOnLiveNode',
      summary:
        'The volume is in use by default/db-old, default/db-other on node node-a, which is Ready: ReadWriteOnce allows one node',
      objects: ['csi-node-a', 'node-a', 'default/db-old', 'default/db-other'],
    });
  });
});

describe('zone-without-nodes', () => {
  it('lists every zone the PV may live in', () => {
    const pv = {
      name: 'pv-1',
      accessModes: ['ReadWriteOnce'],
      zones: ['us-east-1a', 'us-east-1b'],
      nodeBound: false,
    };
    const v = volume([], { pv, zoneHasReadyNode: false });
    expect(zoneDown.check(facts([v]), v)?.blocker?.summary).toBe(
      'PV pv-1 lives in us-east-1a, us-east-1b, where no Ready, schedulable node can take the pod',
    );
  });
});

describe('rbd-image-still-watched', () => {
  const pv = {
    name: 'pvc-7e',
    driver: 'rbd.csi.ceph.com',
    accessModes: ['ReadWriteOnce'],
    zones: [],
    nodeBound: false,
  };
  const v = volume([va(node('node-b', 'True'))], { pv });
  const stillUsed = { kind: SignalKind.RbdImageStillUsed, meaning: '' };

  it('takes a `still being used` event that names no PV, and says "<pool>/<image>" when it names no image', () => {
    expect(
      imageStillWatched.check(facts([v], pod(), node('node-b', 'True'), [stillUsed]), v)?.blocker,
    ).toEqual({
      code: 'RbdImageStillWatched',
      summary: expect.stringMatching(
        /^RBD image <pool>\/<image> \(PV pvc-7e\) cannot be staged on node node-b: /,
      ),
      objects: ['pvc-7e', '<pool>/<image>'],
    });
  });

  it('names no node for a PVC diagnosis (no pod, so no node it is staged on)', () => {
    const signal = { ...stillUsed, pv: 'pvc-7e', image: 'rbd/csi-vol-1' };
    expect(imageStillWatched.check(facts([v], null, null, [signal]), v)?.blocker?.summary).toMatch(
      /^RBD image rbd\/csi-vol-1 \(PV pvc-7e\) cannot be staged: another client still watches it/,
    );
  });

  it('reads only the `still being used` event, not another event about the same PV', () => {
    const attachFailed = { kind: SignalKind.AttachFailed, pv: 'pvc-7e', meaning: '' };
    expect(imageStillWatched.check(facts([v], pod(), node('node-b', 'True'), [attachFailed]), v)).toBeNull();
  });
});
