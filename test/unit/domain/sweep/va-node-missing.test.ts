import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/sweep/index.js';
import { vaNodeMissing } from '../../../../lib/domain/sweep/rules/va-node-missing.js';
import { ago, aVa, crossCheck, disk, world } from './support.js';

describe('VA_NODE_MISSING', () => {
  it('is compliant when the node exists', () => {
    expect(vaNodeMissing.check(aVa('va-1'), world())).toEqual(Compliant);
  });

  it('finds a VolumeAttachment whose node is gone, probing the CSI node id and the disk', () => {
    const va = aVa('va-z', { nodeName: 'node-z', csiNodeId: 'i-0aaaaaaaaaaaaaaa1' });
    const verdict = vaNodeMissing.check(va, world({ volumeAttachments: [va] }));
    expect(verdict).toMatchObject({
      kind: 'finding',
      draft: {
        class: 'VA_NODE_MISSING',
        key: 'va-z',
        probe: {
          instances: ['i-0aaaaaaaaaaaaaaa1'],
          disks: [{ volumeId: 'vol-pv-1', via: 'i-0aaaaaaaaaaaaaaa1' }],
        },
      },
    });
  });

  it('leaves a deleting VolumeAttachment to VA_STUCK_DELETING', () => {
    const va = aVa('va-z', { nodeName: 'node-z', deletionTimestamp: ago(10) });
    expect(vaNodeMissing.check(va, world())).toEqual(NotApplicable);
  });

  it('advises deletion (automatic) when EC2 shows the disk detached', () => {
    const va = aVa('va-z', { nodeName: 'node-z', csiNodeId: 'i-0aaaaaaaaaaaaaaa1' });
    const index = world({ volumeAttachments: [va] });
    const verdict = vaNodeMissing.check(va, index);
    if (verdict.kind !== 'finding') throw new Error('expected a finding');
    const cross = crossCheck({ 'i-0aaaaaaaaaaaaaaa1': 'terminated' }, [disk('vol-pv-1')]);
    expect(vaNodeMissing.advise(verdict.draft, cross, index)).toMatchObject({
      kind: 'delete-volume-attachment',
      automatic: true,
    });
  });

  it('advises against deletion while the disk is attached to a running instance', () => {
    const va = aVa('va-z', { nodeName: 'node-z', csiNodeId: 'i-0aaaaaaaaaaaaaaa1' });
    const index = world({ volumeAttachments: [va] });
    const verdict = vaNodeMissing.check(va, index);
    if (verdict.kind !== 'finding') throw new Error('expected a finding');
    const cross = crossCheck({ 'i-0aaaaaaaaaaaaaaa1': 'running' }, [
      disk('vol-pv-1', ['i-0aaaaaaaaaaaaaaa1']),
    ]);
    const action = vaNodeMissing.advise(verdict.draft, cross, index);
    expect(action).toMatchObject({ kind: 'investigate', automatic: false });
    expect(action.description).toContain('DiskAttachedToLiveInstance');
  });
});
