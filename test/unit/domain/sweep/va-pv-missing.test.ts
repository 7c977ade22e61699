import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/sweep/index.js';
import { vaPvMissing } from '../../../../lib/domain/sweep/rules/va-pv-missing.js';
import { aVa, world } from './support.js';

describe('VA_PV_MISSING', () => {
  it('is compliant when the PV exists', () => {
    expect(vaPvMissing.check(aVa('va-1'), world())).toEqual(Compliant);
  });

  it('finds a VolumeAttachment whose PV is gone, and never advises the fencer to delete it', () => {
    const va = aVa('va-2', { persistentVolumeName: 'pv-gone' });
    const index = world({ volumeAttachments: [va] });
    const verdict = vaPvMissing.check(va, index);
    expect(verdict).toMatchObject({ kind: 'finding', draft: { class: 'VA_PV_MISSING', key: 'va-2' } });
    if (verdict.kind !== 'finding') return;
    expect(vaPvMissing.advise(verdict.draft, null, index)).toMatchObject({ automatic: false });
  });

  it('does not apply to a VolumeAttachment whose node is gone (VA_NODE_MISSING speaks)', () => {
    const va = aVa('va-3', { nodeName: 'node-z', persistentVolumeName: 'pv-gone' });
    expect(vaPvMissing.check(va, world())).toEqual(NotApplicable);
  });
});
