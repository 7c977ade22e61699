import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/sweep/index.js';
import { noAttachCapacity } from '../../../../lib/domain/sweep/rules/no-attach-capacity.js';
import { aClaim, aPod, aVa, world } from './support.js';

const csiNode = (name: string, count?: number) => ({
  name,
  drivers: [{ name: 'ebs.csi.aws.com', ...(count === undefined ? {} : { allocatableCount: count }) }],
});
const pod = aPod('db-0');
const claims = [aClaim('data-db-0', 'pv-1')];
const full = [aVa('va-a', { nodeName: 'node-a' }), aVa('va-b', { nodeName: 'node-b' })];

describe('NO_ATTACH_CAPACITY', () => {
  it('does not apply to a scheduled pod', () => {
    expect(noAttachCapacity.check(aPod('db-0', { nodeName: 'node-a' }), world({ claims }))).toEqual(
      NotApplicable,
    );
  });

  it('is compliant while one eligible node has a free attach slot', () => {
    const index = world({
      claims,
      volumeAttachments: full,
      csiNodes: [csiNode('node-a', 1), csiNode('node-b', 2)],
    });
    expect(noAttachCapacity.check(pod, index)).toEqual(Compliant);
  });

  it('finds a Pending pod when every eligible node is at its CSINode allocatable count', () => {
    const index = world({
      claims,
      volumeAttachments: full,
      csiNodes: [csiNode('node-a', 1), csiNode('node-b', 1)],
    });
    expect(noAttachCapacity.check(pod, index)).toMatchObject({
      kind: 'finding',
      draft: { class: 'NO_ATTACH_CAPACITY', key: 'default/db-0' },
    });
  });
});
