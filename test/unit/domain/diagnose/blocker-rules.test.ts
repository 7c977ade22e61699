/**
 * Each blocker rule on its own: what it names (objects, summary), the safe next step it suggests, and
 * when it stays silent. The operator acts on these sentences, so the facts they carry are checked.
 */
import { describe, expect, it } from 'vitest';
import { findBlocker } from '../../../../lib/domain/diagnose/blocker.js';
import { SignalKind } from '../../../../lib/domain/diagnose/events.js';
import {
  holderOnDeadNode,
  holderOnGoneNode,
  holderOnLiveNode,
  podStuckTerminating,
} from '../../../../lib/domain/diagnose/holder-rules.js';
import { attachFailing, localPv, zoneDown } from '../../../../lib/domain/diagnose/placement-rules.js';
import { imageStillWatched } from '../../../../lib/domain/diagnose/storage-rules.js';
import { facts, node, pod, running, va, volume } from './support.js';

const signal = (kind: SignalKind) => ({ kind, meaning: kind });

describe('pod-terminating-on-notready-node', () => {
  const stuck = pod({ nodeName: 'node-a', terminating: true });

  it('names the pod and its node, and fences that node', () => {
    expect(podStuckTerminating.check(facts([], stuck, node('node-a', 'Unknown')))).toEqual({
      blocker: {
        code: 'PodTerminatingOnNotReadyNode',
        summary: expect.stringMatching(
          /^Pod default\/db-0 is Terminating on node node-a, which is not Ready: /,
        ),
        objects: ['default/db-0', 'node-a'],
      },
      nextAction: {
        kind: 'fence-node',
        description: expect.stringMatching(/^Fence node-a: once EC2 proves its instance off, .*PodGC/),
        command: 'fencer fence node-a',
        automatic: false,
      },
    });
  });

  it.each([
    ['a pod that is not terminating', pod({ nodeName: 'node-a' }), node('node-a', 'Unknown')],
    ['a deleted node', stuck, { name: 'node-a', exists: false as const }],
    ['a Ready node', stuck, node('node-a', 'True')],
    ['a node already out of service', stuck, node('node-a', 'Unknown', 'fencer')],
    ['no pod', null, node('node-a', 'Unknown')],
  ])('says nothing for %s', (_, p, n) => {
    expect(podStuckTerminating.check(facts([], p, n))).toBeNull();
  });
});

describe('holder-on-deleted-node', () => {
  it('names the attachment and the missing node with what the provider said of its machine', () => {
    const gone = va({ name: 'node-z', exists: false }, { instance: null, instanceProblem: 'no CSI node id' });
    const v = volume([gone]);
    expect(holderOnGoneNode.check(facts([v]), v)).toEqual({
      blocker: {
        code: 'VolumeAttachmentNodeMissing',
        summary:
          'VolumeAttachment csi-node-z still holds the volume for node node-z, which no longer exists (instance unknown (no CSI node id))',
        objects: ['csi-node-z', 'node-z'],
      },
      nextAction: {
        kind: 'delete-volume-attachment',
        description: expect.stringContaining('only when EC2 proves the disk is not attached'),
        command: 'fencer sweep --remediate',
        automatic: false,
      },
    });
  });

  it('says the machine was not observed when no reason is known', () => {
    const v = volume([va({ name: 'node-z', exists: false }, { instance: null })]);
    expect(holderOnGoneNode.check(facts([v]), v)?.blocker?.summary).toContain(
      '(instance unknown (not observed))',
    );
  });

  it('says nothing while every holder’s node exists', () => {
    const v = volume([va(node('node-a', 'Unknown'))]);
    expect(holderOnGoneNode.check(facts([v]), v)).toBeNull();
  });
});

describe('holder-on-notready-node', () => {
  it('fences an unreachable node whose machine may still run, and never force-detaches', () => {
    const v = volume([va(node('node-a', 'Unknown'))]);
    expect(holderOnDeadNode.check(facts([v]), v)).toEqual({
      blocker: {
        code: 'VolumeHeldByNotReadyNode',
        summary:
          'VolumeAttachment csi-node-a holds the volume on node node-a, which is unreachable (Ready=Unknown); instance i-0aaaaaaaaaaaaaaa1: running',
        objects: ['csi-node-a', 'node-a', 'i-0aaaaaaaaaaaaaaa1'],
      },
      nextAction: {
        kind: 'fence-node',
        description: expect.stringMatching(/^Fence node-a: power its instance off .*Never force-detach/),
        command: 'fencer fence node-a',
        automatic: false,
      },
    });
  });

  it('says fencing only confirms a machine that is already off, and names a NotReady status', () => {
    const v = volume([va(node('node-a', 'False'), { instance: running('i-0aaaaaaaaaaaaaaa1', 'stopped') })]);
    const verdict = holderOnDeadNode.check(facts([v]), v);
    expect(verdict?.blocker?.summary).toContain(
      'which is NotReady (Ready=False); instance i-0aaaaaaaaaaaaaaa1: stopped',
    );
    expect(verdict?.nextAction.description).toBe(
      'The instance is already off: fencing only confirms it and taints node-a out-of-service, which releases the volume.',
    );
  });

  it('names no instance when the machine is unknown', () => {
    const v = volume([va(node('node-a', 'Unknown'), { instance: null })]);
    expect(holderOnDeadNode.check(facts([v]), v)?.blocker?.objects).toEqual(['csi-node-a', 'node-a']);
  });

  it('waits on the pods still on a fenced node, by name', () => {
    const fenced = node('node-a', 'Unknown', 'fencer');
    const v = volume([va(fenced)], {
      podsUsing: [pod({ name: 'db-old', nodeName: 'node-a', terminating: true }), pod()],
    });
    expect(holderOnDeadNode.check(facts([v]), v)).toEqual({
      blocker: {
        code: 'FencedNodeStillHolding',
        summary:
          'Node node-a is fenced (out-of-service) but VolumeAttachment csi-node-a is still attached; waiting for pod(s) default/db-old still on it',
        objects: ['csi-node-a', 'node-a', 'i-0aaaaaaaaaaaaaaa1'],
      },
      nextAction: {
        kind: 'wait',
        description: expect.stringContaining('PodGC force-deletes terminating pods'),
        command: 'fencer status node-a',
        automatic: false,
      },
    });
  });

  it('waits on the attach-detach controller when no pod is left on the fenced node', () => {
    const v = volume([va(node('node-a', 'Unknown', 'other'))], { podsUsing: [pod()] });
    expect(holderOnDeadNode.check(facts([v]), v)?.blocker?.summary).toMatch(
      /waiting for the attach-detach controller to detach$/,
    );
  });

  it('says nothing about a Ready holder, a deleted one, or the pod’s own node', () => {
    for (const holder of [
      va(node('node-a', 'True')),
      va({ name: 'node-z', exists: false }),
      va(node('node-b', 'Unknown')),
      va(node('node-a', 'Unknown'), { attached: false }),
    ]) {
      const v = volume([holder]);
      expect(holderOnDeadNode.check(facts([v]), v)).toBeNull();
    }
  });
});

describe('holder-on-ready-node', () => {
  const live = node('node-a', 'True');

  it('names the pods using the volume on a Ready node and never fences it', () => {
    const users = [pod({ name: 'db-old', nodeName: 'node-a', phase: 'Running' })];
    const v = volume([va(live)], { podsUsing: users });
    expect(holderOnLiveNode.check(facts([v]), v)).toEqual({
      blocker: {
        code: 'VolumeInUseOnLiveNode',
        summary:
          'The volume is in use by default/db-old on node node-a, which is Ready: ReadWriteOnce allows one node',
        objects: ['csi-node-a', 'node-a', 'default/db-old'],
      },
      nextAction: {
        kind: 'investigate',
        description: expect.stringMatching(/^Node node-a is alive, so it is never fenced\./),
        automatic: false,
      },
    });
  });

  it('points at the kubelet and CSI node plugin when no pod there uses the volume', () => {
    const v = volume([va(live)]);
    expect(holderOnLiveNode.check(facts([v]), v)).toEqual({
      blocker: {
        code: 'VolumeStuckOnLiveNode',
        summary: expect.stringMatching(
          /^VolumeAttachment csi-node-a keeps the volume on Ready node node-a although no pod there uses it/,
        ),
        objects: ['csi-node-a', 'node-a'],
      },
      nextAction: {
        kind: 'investigate',
        description: expect.stringMatching(
          /^Node node-a is Ready, so it is not a fencing case: .*volumesInUse/,
        ),
        automatic: false,
      },
    });
  });

  it('is a blocker for a PVC diagnosis only when a pod on another node wants the volume', () => {
    const mine = pod({ name: 'db-old', nodeName: 'node-a' });
    const inUse = volume([va(live)], { podsUsing: [mine] });
    expect(holderOnLiveNode.check(facts([inUse], null, null), inUse)).toBeNull();
    const wanted = volume([va(live)], { podsUsing: [mine, pod({ nodeName: 'node-c' })] });
    expect(holderOnLiveNode.check(facts([wanted], null, null), wanted)?.blocker?.code).toBe(
      'VolumeInUseOnLiveNode',
    );
  });

  it('says nothing about holders on nodes that are not Ready', () => {
    const v = volume([va(node('node-a', 'Unknown'))]);
    expect(holderOnLiveNode.check(facts([v]), v)).toBeNull();
  });
});

describe('local-pv-node-down', () => {
  const pinned = (nodeNames?: string[]) =>
    volume([], {
      pv: { name: 'local-1', accessModes: ['ReadWriteOnce'], zones: [], nodeBound: true, nodeNames },
      localNodeReady: false,
    });

  it('names the PV and the nodes it is pinned to, and says fencing does not help', () => {
    const v = pinned(['node-c', 'node-d']);
    expect(localPv.check(facts([v]), v)).toEqual({
      blocker: {
        code: 'LocalVolumeNodeDown',
        summary: 'Local PV local-1 is pinned to node-c, node-d, which is not Ready',
        objects: ['local-1', 'node-c, node-d'],
      },
      nextAction: {
        kind: 'investigate',
        description:
          'Bring node-c, node-d back: a Local PV never moves, so its pod waits for that node (fencing does not help).',
        automatic: false,
      },
    });
  });

  it('says "its node" when the PV names none', () => {
    const v = pinned();
    expect(localPv.check(facts([v]), v)?.blocker?.summary).toBe(
      'Local PV local-1 is pinned to its node, which is not Ready',
    );
  });

  it('says nothing while the local node is Ready, or for a PV that is not local', () => {
    const ready = { ...pinned(['node-c']), localNodeReady: true };
    expect(localPv.check(facts([ready]), ready)).toBeNull();
    const zonal = volume([], { localNodeReady: false });
    expect(localPv.check(facts([zonal]), zonal)).toBeNull();
  });
});

describe('zone-without-nodes', () => {
  it('names the PV and its zones when no Ready node is left there', () => {
    const v = volume([], { zoneHasReadyNode: false });
    expect(zoneDown.check(facts([v]), v)).toEqual({
      blocker: {
        code: 'NoHealthyNodeInPvZone',
        summary: 'PV pv-1 lives in us-east-1a, where no Ready, schedulable node can take the pod',
        objects: ['pv-1', 'us-east-1a'],
      },
      nextAction: {
        kind: 'restore-zone',
        description: expect.stringMatching(
          /^Bring a node in us-east-1a back or add one; a zonal disk never leaves/,
        ),
        automatic: false,
      },
    });
  });

  it('speaks on a volume node affinity conflict even when the zone looks healthy', () => {
    const v = volume([], { pv: null });
    const conflict = facts([v], pod(), node('node-b', 'True'), [
      signal(SignalKind.VolumeNodeAffinityConflict),
    ]);
    expect(zoneDown.check(conflict, v)?.blocker).toEqual({
      code: 'NoHealthyNodeInPvZone',
      summary: 'PV ? lives in its zone, where no Ready, schedulable node can take the pod',
      objects: ['', 'its zone'],
    });
  });

  it('says nothing for a healthy zone without a conflict, or another signal', () => {
    const v = volume([]);
    expect(zoneDown.check(facts([v]), v)).toBeNull();
    const other = facts([v], pod(), node('node-b', 'True'), [signal(SignalKind.ExceedMaxVolumeCount)]);
    expect(zoneDown.check(other, v)).toBeNull();
  });
});

describe('target-attach-failing', () => {
  it('quotes the attach error on the pod’s node', () => {
    const failing = va(node('node-b', 'True'), { attached: false, attachError: 'rpc error: volume limit' });
    const v = volume([failing]);
    expect(attachFailing.check(facts([v]), v)).toEqual({
      blocker: {
        code: 'AttachFailing',
        summary: 'Attaching to node-b fails: rpc error: volume limit',
        objects: ['csi-node-b', 'node-b'],
      },
      nextAction: {
        kind: 'investigate',
        description: expect.stringMatching(
          /^A downstream blocker, not a fencing case: .*CSI controller logs/,
        ),
        automatic: false,
      },
    });
  });

  it('says every node is at its attach limit when the scheduler says so', () => {
    const v = volume([]);
    const full = facts([v], pod(), node('node-b', 'True'), [signal(SignalKind.ExceedMaxVolumeCount)]);
    expect(attachFailing.check(full, v)?.blocker).toEqual({
      code: 'NoAttachCapacity',
      summary: 'Every candidate node is at its attach limit',
      objects: [],
    });
  });

  it('says nothing for an attachment that succeeded, failed elsewhere, or has no error', () => {
    for (const a of [
      va(node('node-b', 'True')),
      va(node('node-c', 'True'), { attached: false, attachError: 'boom' }),
      va(node('node-b', 'True'), { attached: false }),
    ]) {
      const v = volume([a]);
      const other = facts([v], pod(), node('node-b', 'True'), [
        signal(SignalKind.VolumeNodeAffinityConflict),
      ]);
      expect(attachFailing.check(other, v)).toBeNull();
    }
  });
});

describe('findBlocker with nothing in the way', () => {
  it('says so without naming a volume when none is attached', () => {
    expect(findBlocker(facts([volume([])])).nextAction).toEqual({
      kind: 'wait',
      description: 'No storage blocker found.',
      automatic: false,
    });
  });

  it('lists every attached volume, a PV-less one as "?"', () => {
    const here = va(node('node-b', 'True'));
    const verdict = findBlocker(
      facts([volume([here]), volume([here, { ...here, attached: false }], { pv: null })]),
    );
    expect(verdict.nextAction.description).toBe(
      'No storage blocker: pv-1 attached to node-b; ? attached to node-b.',
    );
  });
});

describe('rbd-image-still-watched', () => {
  const rbdPv = (driver = 'rbd.csi.ceph.com') => ({
    name: 'pvc-7e',
    driver,
    accessModes: ['ReadWriteOnce'],
    zones: [],
    nodeBound: false,
  });
  const stillUsed = { kind: SignalKind.RbdImageStillUsed, pv: 'pvc-7e', image: 'rbd/csi-vol-1', meaning: '' };
  // The attachment moved to node-b, where the pod waits: no holder in Kubernetes' eyes.
  const moved = (driver?: string) => volume([va(node('node-b', 'True'))], { pv: rbdPv(driver) });

  it('names the image and the PV, how to find the holder’s address, and the storage-layer fence', () => {
    const v = moved();
    expect(imageStillWatched.check(facts([v], pod(), node('node-b', 'True'), [stillUsed]), v)).toEqual({
      blocker: {
        code: 'RbdImageStillWatched',
        summary: expect.stringMatching(
          /^RBD image rbd\/csi-vol-1 \(PV pvc-7e\) cannot be staged on node node-b: another client still watches it/,
        ),
        objects: ['pvc-7e', 'rbd/csi-vol-1'],
      },
      nextAction: {
        kind: 'investigate',
        description: expect.stringMatching(
          /^Find the holder's address in the image's watchers .* ceph osd blocklist range add <ip>\/32 604800\)\. Never on a live node's address\. The out-of-service taint alone does not free the image\.$/,
        ),
        command: 'rbd status rbd/csi-vol-1',
        automatic: false,
      },
    });
  });

  it('is what findBlocker answers for the moved attachment (before: no blocker at all)', () => {
    const v = moved();
    expect(findBlocker(facts([v], pod(), node('node-b', 'True'), [stillUsed])).blocker?.code).toBe(
      'RbdImageStillWatched',
    );
    expect(findBlocker(facts([v])).blocker).toBeNull();
  });

  it('reads Rook’s driver name as RBD too', () => {
    const v = moved('rook-ceph.rbd.csi.ceph.com');
    expect(
      imageStillWatched.check(facts([v], pod(), node('node-b', 'True'), [stillUsed]), v)?.blocker?.code,
    ).toBe('RbdImageStillWatched');
  });

  it.each([
    ['no `still being used` event', moved(), []],
    ['a volume that is not RBD', moved('ebs.csi.aws.com'), [stillUsed]],
    ['an event about another PV', moved(), [{ ...stillUsed, pv: 'pvc-other' }]],
    ['a volume without a PV', volume([], { pv: null }), [stillUsed]],
  ])('says nothing for %s', (_, v, signals) => {
    expect(imageStillWatched.check(facts([v], pod(), node('node-b', 'True'), signals), v)).toBeNull();
  });
});
