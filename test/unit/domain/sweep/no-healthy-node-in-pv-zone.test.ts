import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/sweep/index.js';
import { noHealthyNodeInPvZone } from '../../../../lib/domain/sweep/rules/no-healthy-node-in-pv-zone.js';
import { aClaim, aNode, aPod, aPv, world } from './support.js';

const pending = aPod('db-0');
const claims = [aClaim('data-db-0', 'pv-1')];

describe('NO_HEALTHY_NODE_IN_PV_ZONE', () => {
  it('does not apply to a Local PV (it waits for its node by design)', () => {
    const pv = aPv('pv-1', { nodeBound: true });
    expect(noHealthyNodeInPvZone.check({ pv, pods: [pending] }, world())).toEqual(NotApplicable);
  });

  it('is compliant while the zone has a Ready, schedulable node', () => {
    expect(noHealthyNodeInPvZone.check({ pv: aPv('pv-1'), pods: [pending] }, world())).toEqual(Compliant);
  });

  it('finds a zonal PV whose zone has only NotReady or cordoned nodes while its pod is Pending', () => {
    const index = world({
      nodes: [aNode('node-a', { ready: 'Unknown' }), aNode('node-b', { unschedulable: true })],
      pendingPods: [pending],
      claims,
    });
    const [subject] = noHealthyNodeInPvZone.subjects(index);
    expect(subject?.pv.name).toBe('pv-1');
    const verdict = noHealthyNodeInPvZone.check(subject as never, index);
    expect(verdict).toMatchObject({
      kind: 'finding',
      draft: { class: 'NO_HEALTHY_NODE_IN_PV_ZONE', key: 'pv-1' },
    });
  });

  it.each(['NoSchedule', 'NoExecute'])(
    'counts a node with a %s taint as unable to take the pod',
    (effect) => {
      const taints = [{ key: 'example.com/maintenance', effect }];
      const index = world({
        nodes: [aNode('node-a', { taints }), aNode('node-b', { ready: 'False' })],
        pendingPods: [pending],
        claims,
      });
      const [subject] = noHealthyNodeInPvZone.subjects(index);
      expect(noHealthyNodeInPvZone.check(subject as never, index)).toMatchObject({ kind: 'finding' });
    },
  );

  it('still counts a node whose only taint is PreferNoSchedule', () => {
    const taints = [{ key: 'example.com/soft', effect: 'PreferNoSchedule' }];
    const index = world({
      nodes: [aNode('node-a', { taints }), aNode('node-b', { ready: 'False' })],
      pendingPods: [pending],
      claims,
    });
    const [subject] = noHealthyNodeInPvZone.subjects(index);
    expect(noHealthyNodeInPvZone.check(subject as never, index)).toEqual(Compliant);
  });
});
