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
});
