import { describe, expect, it } from 'vitest';
import { recognizeEvent } from '../../../../lib/domain/diagnose/events.js';

describe('recognizeEvent', () => {
  it('tells "already used by pod(s)" apart, with the PV and the pods it names', () => {
    const signal = recognizeEvent(
      'FailedAttachVolume',
      'Multi-Attach error for volume "pvc-c93a8" Volume is already used by pod(s) web-old12, web-old13',
    );
    expect(signal).toMatchObject({
      kind: 'multi-attach-used-by-pods',
      pv: 'pvc-c93a8',
      pods: ['web-old12', 'web-old13'],
    });
    expect(signal?.meaning).toContain('still exists on the other node');
  });

  it('tells "already exclusively attached to one node" apart', () => {
    const signal = recognizeEvent(
      'FailedAttachVolume',
      `Multi-Attach error for volume "pvc-16293fb9" Volume is already exclusively attached to one node and can't be attached to another`,
    );
    expect(signal).toMatchObject({ kind: 'multi-attach-exclusively-attached', pv: 'pvc-16293fb9' });
    expect(signal?.meaning).toContain('VolumeAttachment');
  });

  it('recognises an attach failure with its provider message', () => {
    expect(
      recognizeEvent(
        'FailedAttachVolume',
        'AttachVolume.Attach failed for volume "pv-1" : rpc error: code = Internal desc = VolumeInUse',
      ),
    ).toMatchObject({ kind: 'attach-failed', pv: 'pv-1' });
  });

  it.each([
    [
      'FailedScheduling',
      '0/6 nodes are available: 1 node(s) had volume node affinity conflict.',
      'volume-node-affinity-conflict',
    ],
    [
      'FailedScheduling',
      '0/13 nodes are available: 5 node(s) exceed max volume count.',
      'exceed-max-volume-count',
    ],
    [
      'FailedMount',
      'MountVolume.MountDevice failed for volume "pvc-7e" : rbd image k8s/csi-vol-1 is still being used',
      'rbd-image-still-used',
    ],
  ])('recognises %s "%s"', (reason, message, kind) => {
    expect(recognizeEvent(reason, message)?.kind).toBe(kind);
  });

  it('ignores events that are not storage signals', () => {
    expect(recognizeEvent('Scheduled', 'Successfully assigned default/db-0 to node-b')).toBeNull();
  });

  it('reads a Multi-Attach message without the comma, and pods separated by bare commas', () => {
    expect(
      recognizeEvent(
        'FailedAttachVolume',
        'Multi-Attach error for volume "pvc-1", Volume is already used by pod(s) a-0,b-0,  c-0',
      ),
    ).toMatchObject({ pv: 'pvc-1', pods: ['a-0', 'b-0', 'c-0'] });
  });

  it('names no empty pod when the list ends in a comma', () => {
    expect(
      recognizeEvent(
        'FailedAttachVolume',
        'Multi-Attach error for volume "pvc-1" Volume is already used by pod(s) a-0, b-0,',
      ),
    ).toMatchObject({ pods: ['a-0', 'b-0'] });
  });

  it('quotes the provider’s message as the meaning of a failed attach', () => {
    expect(
      recognizeEvent(
        'FailedAttachVolume',
        'AttachVolume.Attach failed for volume "pv-1" : rpc error: VolumeInUse',
      ),
    ).toEqual({
      kind: 'attach-failed',
      pv: 'pv-1',
      meaning: 'The attach itself failed: rpc error: VolumeInUse',
    });
    expect(recognizeEvent('FailedAttachVolume', 'AttachVolume.Attach failed for volume "pv-1" : ')).toEqual({
      kind: 'attach-failed',
      pv: 'pv-1',
      meaning: 'The attach itself failed:',
    });
  });

  it.each([
    [
      'FailedScheduling',
      '0/3 nodes are available: 3 node(s) had untolerated taint {node.kubernetes.io/out-of-service: nodeshutdown}.',
      'out-of-service-untolerated',
      'A node still carries the out-of-service taint, so nothing schedules there.',
    ],
    [
      'FailedMount',
      'Unable to attach or mount volumes: unmounted volumes=[data]: timed out waiting for the condition',
      'mount-timeout',
      'The kubelet gave up waiting for the volume: a symptom; the attach events say why.',
    ],
    [
      'FailedMount',
      'Unable to attach or mount volumes: unmounted volumes=[data]: context deadline exceeded',
      'mount-timeout',
      'The kubelet gave up waiting for the volume: a symptom; the attach events say why.',
    ],
    [
      'FailedScheduling',
      '0/6 nodes are available: 6 node(s) had no available volume zone.',
      'volume-node-affinity-conflict',
      "The volume's zone has no node the pod can use (volume node affinity conflict): a zonal disk cannot move zones.",
    ],
    [
      'FailedScheduling',
      '0/13 nodes are available: 5 node(s) exceed max volume count.',
      'exceed-max-volume-count',
      'Every candidate node is at its attach limit (CSINode allocatable.count).',
    ],
  ])('recognises %s "%s" and says what it means', (reason, message, kind, meaning) => {
    expect(recognizeEvent(reason, message)).toEqual({ kind, meaning });
  });

  it('reads the PV and the image of a `still being used` message, and says what it means', () => {
    expect(
      recognizeEvent(
        'FailedMount',
        'MountVolume.MountDevice failed for volume "pvc-7e" : rpc error: code = Internal desc = rbd image k8s/csi-vol-1 is still being used',
      ),
    ).toEqual({
      kind: 'rbd-image-still-used',
      pv: 'pvc-7e',
      image: 'k8s/csi-vol-1',
      meaning:
        'A Ceph watcher still holds the RBD image: the old client must be blocklisted (storage fencing).',
    });
    // Without the volume's name (another kubelet's wording), the image alone.
    expect(recognizeEvent('FailedMount', 'rbd image k8s/csi-vol-1 is still being used')).toMatchObject({
      image: 'k8s/csi-vol-1',
    });
    expect(recognizeEvent('FailedMount', 'rbd image k8s/csi-vol-1 is still being used')).not.toHaveProperty(
      'pv',
    );
  });

  it('matches the event reason exactly, not a message on another reason', () => {
    const message = 'AttachVolume.Attach failed for volume "pv-1" : boom';
    expect(recognizeEvent('FailedAttachVolumeX', message)).toBeNull();
    expect(recognizeEvent('XFailedAttachVolume', message)).toBeNull();
    expect(recognizeEvent('FailedMount', message)).toBeNull();
  });

  it('gives each Multi-Attach message its full meaning', () => {
    expect(
      recognizeEvent(
        'FailedAttachVolume',
        'Multi-Attach error for volume "p" Volume is already used by pod(s) a',
      )?.meaning,
    ).toBe(
      'Multi-Attach, "already used by pod(s)": a pod that uses the volume still exists on the other node ' +
        '(typically Terminating on a dead node). It must go first: once the node is proven off, the ' +
        'out-of-service taint makes PodGC force-delete it.',
    );
    expect(
      recognizeEvent(
        'FailedAttachVolume',
        `Multi-Attach error for volume "p" Volume is already exclusively attached to one node and can't be attached to another`,
      ),
    ).toEqual({
      kind: 'multi-attach-exclusively-attached',
      pv: 'p',
      meaning:
        'Multi-Attach, "exclusively attached to one node": no pod on the other node uses the volume any ' +
        'more, but the attach-detach controller still counts it attached there (its VolumeAttachment). ' +
        'Only fencing that node (or a proven detach) releases it.',
    });
  });
});
