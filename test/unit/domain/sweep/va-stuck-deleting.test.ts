import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/sweep/index.js';
import { vaStuckDeleting } from '../../../../lib/domain/sweep/rules/va-stuck-deleting.js';
import { ago, aVa, crossCheck, disk, world } from './support.js';

const HOLDER = 'i-0aaaaaaaaaaaaaaa1';

/** The advice for a VolumeAttachment deleting for 15 minutes, given the provider's cross-check. */
function adviceFor(cross: Parameters<typeof vaStuckDeleting.advise>[1]) {
  const va = aVa('va-1', { deletionTimestamp: ago(900) });
  const index = world({ volumeAttachments: [va] });
  const verdict = vaStuckDeleting.check(va, index);
  if (verdict.kind !== 'finding') throw new Error('expected a finding');
  return vaStuckDeleting.advise(verdict.draft, cross, index);
}

describe('VA_STUCK_DELETING', () => {
  it('does not apply to a VolumeAttachment that is not deleting', () => {
    expect(vaStuckDeleting.check(aVa('va-1'), world())).toEqual(NotApplicable);
  });

  it('is compliant while the deletion is younger than the threshold', () => {
    expect(vaStuckDeleting.check(aVa('va-1', { deletionTimestamp: ago(60) }), world())).toEqual(Compliant);
  });

  it('finds a deletion held by its finalizer past the threshold, with the detach error', () => {
    const va = aVa('va-1', {
      deletionTimestamp: ago(900),
      detachError: { message: 'rpc error: code = Internal' },
    });
    const verdict = vaStuckDeleting.check(va, world({ volumeAttachments: [va] }));
    expect(verdict).toMatchObject({ kind: 'finding', draft: { class: 'VA_STUCK_DELETING' } });
    if (verdict.kind !== 'finding') return;
    expect(verdict.draft.evidence[0]).toContain('detachError "rpc error: code = Internal"');
  });

  it('advises fencing rather than force-detaching while a running machine holds the disk', () => {
    const action = adviceFor(crossCheck({ [HOLDER]: 'running' }, [disk('vol-pv-1', [HOLDER])]));
    expect(action.description).toContain('never remove the finalizer now');
  });

  it('names the proven-off holder and says to wait, not that the provider could not tell', () => {
    const action = adviceFor(crossCheck({ [HOLDER]: 'stopped' }, [disk('vol-pv-1', [HOLDER])]));
    expect(action).toMatchObject({ kind: 'wait', command: 'kubectl describe volumeattachment va-1' });
    expect(action.description).toContain(`still attached to ${HOLDER}, which the provider reports off`);
    expect(action.description).not.toContain('could not say');
  });

  it('says the provider could not tell only when it did not answer about the disk', () => {
    expect(adviceFor(null).description).toContain('could not say');
  });
});
