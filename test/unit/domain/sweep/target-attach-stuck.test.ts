import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/sweep/index.js';
import { targetAttachStuck } from '../../../../lib/domain/sweep/rules/target-attach-stuck.js';
import { ago, aNode, aVa, world } from './support.js';

const failing = (seconds: number) =>
  aVa('va-new', {
    nodeName: 'node-b',
    attached: false,
    attachError: { message: 'VolumeInUse', time: ago(seconds) },
  });

describe('TARGET_ATTACH_STUCK', () => {
  it('does not apply to an attached VolumeAttachment', () => {
    expect(targetAttachStuck.check(aVa('va-1'), world())).toEqual(NotApplicable);
  });

  it('is compliant while the attach error is younger than the threshold', () => {
    expect(targetAttachStuck.check(failing(30), world())).toEqual(Compliant);
  });

  it('finds a replacement failing to attach, names the old holder, and advises fencing its NotReady node', () => {
    const old = aVa('va-old', { nodeName: 'node-a' });
    const index = world({
      nodes: [aNode('node-a', { ready: 'Unknown' }), aNode('node-b')],
      volumeAttachments: [old, failing(600)],
    });
    const verdict = targetAttachStuck.check(failing(600), index);
    expect(verdict).toMatchObject({
      kind: 'finding',
      draft: { class: 'TARGET_ATTACH_STUCK', key: 'va-new' },
    });
    if (verdict.kind !== 'finding') return;
    expect(verdict.draft.objects.map((o) => o.name)).toContain('va-old');
    expect(targetAttachStuck.advise(verdict.draft, null, index)).toMatchObject({
      command: 'fencer fence node-a',
    });
  });
});
