/**
 * Where each sweep rule draws its line: thresholds at their exact value, and the facts that make a
 * subject count or not (attached, deleting, in the zone, schedulable, of the driver). Each case changes
 * one fact against the rule's own finding.
 */
import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable, type SweepVerdict } from '../../../../lib/domain/sweep/index.js';
import { noAttachCapacity } from '../../../../lib/domain/sweep/rules/no-attach-capacity.js';
import {
  noHealthyNodeInPvZone,
  pendingVolumes,
} from '../../../../lib/domain/sweep/rules/no-healthy-node-in-pv-zone.js';
import { taintLeftBehind } from '../../../../lib/domain/sweep/rules/taint-left-behind.js';
import { targetAttachStuck } from '../../../../lib/domain/sweep/rules/target-attach-stuck.js';
import { vaOnNotReadyNode } from '../../../../lib/domain/sweep/rules/va-on-not-ready-node.js';
import { vaPvMissing } from '../../../../lib/domain/sweep/rules/va-pv-missing.js';
import { vaStuckDeleting } from '../../../../lib/domain/sweep/rules/va-stuck-deleting.js';
import { aClaim, ago, aNode, aPod, aPv, aVa, world } from './support.js';

const kindOf = (verdict: SweepVerdict) =>
  verdict === Compliant ? 'compliant' : verdict === NotApplicable ? 'not applicable' : 'finding';

describe('thresholds speak from their exact value on (DEFAULT_SWEEP_THRESHOLDS)', () => {
  it('VA_ON_NOTREADY_NODE: 180 s NotReady', () => {
    const at = (seconds: number) => {
      const node = aNode('node-a', { ready: 'Unknown', readySince: ago(seconds) });
      return kindOf(vaOnNotReadyNode.check(node, world({ nodes: [node] })));
    };
    expect([at(179), at(180)]).toEqual(['compliant', 'finding']);
  });

  it('VA_STUCK_DELETING: 600 s deleting', () => {
    const at = (seconds: number) =>
      kindOf(vaStuckDeleting.check(aVa('va-1', { deletionTimestamp: ago(seconds) }), world()));
    expect([at(599), at(600)]).toEqual(['compliant', 'finding']);
  });

  it('TARGET_ATTACH_STUCK: 300 s failing, from the error’s time or else the attachment’s creation', () => {
    const at = (seconds: number) => {
      const va = aVa('va-1', { attached: false, attachError: { message: 'x', time: ago(seconds) } });
      return kindOf(targetAttachStuck.check(va, world({ volumeAttachments: [va] })));
    };
    expect([at(299), at(300)]).toEqual(['compliant', 'finding']);
    const untimed = aVa('va-1', { attached: false, attachError: { message: 'x' }, createdAt: ago(299) });
    expect(kindOf(targetAttachStuck.check(untimed, world({ volumeAttachments: [untimed] })))).toBe(
      'compliant',
    );
  });
});

describe('an age the sweep cannot read counts as past the threshold (reported, never held back)', () => {
  it('VA_ON_NOTREADY_NODE without a readySince time', () => {
    const node = aNode('node-a', { ready: 'Unknown', readySince: undefined });
    expect(kindOf(vaOnNotReadyNode.check(node, world({ nodes: [node] })))).toBe('finding');
  });

  it('VA_STUCK_DELETING with an unreadable deletion time', () => {
    expect(kindOf(vaStuckDeleting.check(aVa('va-1', { deletionTimestamp: 'soon' }), world()))).toBe(
      'finding',
    );
  });

  it('TARGET_ATTACH_STUCK with an unreadable error time', () => {
    const va = aVa('va-1', { attached: false, attachError: { message: 'x', time: 'soon' } });
    expect(kindOf(targetAttachStuck.check(va, world({ volumeAttachments: [va] })))).toBe('finding');
  });
});

describe('VA_ON_NOTREADY_NODE counts', () => {
  it('nothing on a NotReady node without attached volumes', () => {
    const node = aNode('node-a', { ready: 'False', readySince: ago(600) });
    expect(vaOnNotReadyNode.check(node, world({ nodes: [node], volumeAttachments: [] }))).toEqual(
      NotApplicable,
    );
  });

  it('the machine by its providerID without surrounding blanks', () => {
    const node = aNode('node-a', { ready: 'False', readySince: ago(600), providerId: ' aws:///z/i-0abc ' });
    const verdict = vaOnNotReadyNode.check(node, world({ nodes: [node] }));
    expect(verdict.kind === 'finding' ? verdict.draft.probe.instances : []).toEqual(['aws:///z/i-0abc']);
  });
});

describe('VA_PV_MISSING leaves alone', () => {
  it('an inline volume and a deleting attachment', () => {
    const world1 = world();
    expect(vaPvMissing.check(aVa('va-1', { persistentVolumeName: undefined }), world1)).toEqual(
      NotApplicable,
    );
    const deleting = aVa('va-1', { persistentVolumeName: 'pv-gone', deletionTimestamp: ago(5) });
    expect(vaPvMissing.check(deleting, world1)).toEqual(NotApplicable);
  });
});

describe('TARGET_ATTACH_STUCK', () => {
  it('leaves alone an attached attachment with an old error, and a deleting one', () => {
    const error = { message: 'x', time: ago(900) };
    expect(targetAttachStuck.check(aVa('va-1', { attachError: error }), world())).toEqual(NotApplicable);
    const deleting = aVa('va-1', { attached: false, attachError: error, deletionTimestamp: ago(5) });
    expect(targetAttachStuck.check(deleting, world())).toEqual(NotApplicable);
  });

  it('calls holder only another attachment of the PV that is attached, on another node', () => {
    const stuck = aVa('va-new', { nodeName: 'node-b', attached: false, attachError: { message: 'x' } });
    const vas = [
      stuck,
      aVa('va-old', { nodeName: 'node-a' }),
      aVa('va-detached', { nodeName: 'node-a', attached: false }),
      aVa('va-same-node', { nodeName: 'node-b' }),
      aVa('va-other-pv', { nodeName: 'node-a', persistentVolumeName: 'pv-2' }),
    ];
    const verdict = targetAttachStuck.check(stuck, world({ volumeAttachments: vas }));
    expect(verdict.kind === 'finding' ? verdict.draft.objects.map((o) => o.name) : []).toEqual([
      'va-new',
      'node-b',
      'va-old',
    ]);
  });
});

describe('TAINT_LEFT_BEHIND', () => {
  const oos = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };
  const tainted = aNode('node-c', { taints: [oos] });

  it('asks about the machine by its providerID without surrounding blanks', () => {
    const padded = aNode('node-c', { taints: [oos], providerId: ' aws:///z/i-0abc ' });
    const verdict = taintLeftBehind.check(padded, world({ nodes: [padded], volumeAttachments: [] }));
    expect(verdict.kind === 'finding' ? verdict.draft.probe.instances : []).toEqual(['aws:///z/i-0abc']);
  });

  it('waits for an attachment still on the node, and for a terminating pod, not a running one', () => {
    const check = (over: Parameters<typeof world>[0]) =>
      kindOf(taintLeftBehind.check(tainted, world({ nodes: [tainted], volumeAttachments: [], ...over })));
    expect(check({ volumeAttachments: [aVa('va-1', { nodeName: 'node-c' })] })).toBe('compliant');
    expect(
      check({ podsOnTaintedNodes: [aPod('p', { nodeName: 'node-c', deletionTimestamp: ago(5) })] }),
    ).toBe('compliant');
    expect(check({ podsOnTaintedNodes: [aPod('p', { nodeName: 'node-c', phase: 'Running' })] })).toBe(
      'finding',
    );
  });
});

describe('NO_HEALTHY_NODE_IN_PV_ZONE', () => {
  const claims = [aClaim('data-db-0', 'pv-1')];
  const verdicts = (over: Parameters<typeof world>[0]) => {
    const index = world({ pendingPods: [aPod('db-0')], claims, ...over });
    return pendingVolumes(index).map((subject) => kindOf(noHealthyNodeInPvZone.check(subject, index)));
  };

  it('does not apply to a PV without zones', () => {
    expect(verdicts({ nodes: [], persistentVolumes: [aPv('pv-1', { zones: [] })] })).toEqual([
      'not applicable',
    ]);
  });

  it('lists every zone of the PV and every node in them', () => {
    const twoZones = [aPv('pv-1', { zones: ['us-east-1a', 'us-east-1b'] })];
    const index = (nodes: ReturnType<typeof aNode>[]) =>
      world({ pendingPods: [aPod('db-0')], claims, nodes, persistentVolumes: twoZones });
    const drafts = (nodes: ReturnType<typeof aNode>[]) => {
      const i = index(nodes);
      return pendingVolumes(i).map((subject) => {
        const verdict = noHealthyNodeInPvZone.check(subject, i);
        return verdict.kind === 'finding' ? verdict.draft : null;
      });
    };
    const [none] = drafts([]);
    expect(none?.summary).toMatch(
      /^PersistentVolume pv-1 lives in us-east-1a, us-east-1b, which has no Ready/,
    );
    expect(none?.evidence.at(-1)).toBe('no node in us-east-1a, us-east-1b');
    const [two] = drafts([aNode('node-a', { ready: 'False' }), aNode('node-b', { ready: 'Unknown' })]);
    expect(two?.evidence.at(-1)).toBe(
      'nodes in us-east-1a, us-east-1b: node node-a: Ready=False since 24h ago; node node-b: Ready=Unknown since 24h ago',
    );
  });

  it('is not helped by a Ready node in another zone', () => {
    const elsewhere = aNode('node-b', { labels: { 'topology.kubernetes.io/zone': 'us-east-1b' } });
    expect(verdicts({ nodes: [aNode('node-a', { ready: 'False' }), elsewhere] })).toEqual(['finding']);
  });
});

describe('NO_ATTACH_CAPACITY counts', () => {
  const claims = [aClaim('data-db-0', 'pv-1')];
  const ebs = (name: string, count?: number, other = false) => ({
    name,
    drivers: [
      ...(other ? [{ name: 'efs.csi.aws.com', allocatableCount: 99 }] : []),
      { name: 'ebs.csi.aws.com', ...(count === undefined ? {} : { allocatableCount: count }) },
    ],
  });
  const full = aVa('va-a', { nodeName: 'node-a' });
  const check = (over: Parameters<typeof world>[0], pod = aPod('db-0')) =>
    kindOf(
      noAttachCapacity.check(
        pod,
        world({ claims, nodes: [aNode('node-a')], volumeAttachments: [full], ...over }),
      ),
    );

  it('a node full of its driver as full, past another driver listed first', () => {
    expect(check({ csiNodes: [ebs('node-a', 1, true)] })).toBe('finding');
  });

  it('neither attachments being deleted nor those of another driver as used', () => {
    const vas = [
      aVa('va-del', { nodeName: 'node-a', deletionTimestamp: ago(5) }),
      aVa('va-efs', { nodeName: 'node-a', attacher: 'efs.csi.aws.com' }),
    ];
    expect(check({ volumeAttachments: vas, csiNodes: [ebs('node-a', 1)] })).toBe('compliant');
  });

  it('a driver without an allocatable count as unlimited', () => {
    expect(check({ csiNodes: [ebs('node-a')] })).toBe('compliant');
  });

  it('only Ready, schedulable nodes in the PV’s zone, and only those that report the driver', () => {
    const notReady = aNode('node-b', { ready: 'False' });
    const otherZone = aNode('node-c', { labels: { 'topology.kubernetes.io/zone': 'us-east-1b' } });
    const noZone = aNode('node-d', { labels: {} });
    const noCsi = aNode('node-e');
    const csiNodes = [ebs('node-a', 1), ebs('node-b', 9), ebs('node-c', 9), ebs('node-d', 9)];
    expect(check({ nodes: [aNode('node-a'), notReady, otherZone, noZone, noCsi], csiNodes })).toBe('finding');
  });

  it('any node for a PV that names no zone', () => {
    const otherZone = aNode('node-c', { labels: { 'topology.kubernetes.io/zone': 'us-east-1b' } });
    const csiNodes = [ebs('node-a', 1), ebs('node-c', 9)];
    const pvs = [aPv('pv-1', { zones: [] })];
    expect(check({ nodes: [aNode('node-a'), otherZone], csiNodes, persistentVolumes: pvs })).toBe(
      'compliant',
    );
  });

  it('nothing for a scheduled pod, a Local or driverless PV, or where no node reports the driver', () => {
    const csiNodes = [ebs('node-a', 1)];
    expect(check({ csiNodes }, aPod('db-0', { nodeName: 'node-a' }))).toBe('not applicable');
    expect(check({ csiNodes, persistentVolumes: [aPv('pv-1', { nodeBound: true })] })).toBe('not applicable');
    expect(check({ csiNodes, persistentVolumes: [aPv('pv-1', { driver: undefined })] })).toBe(
      'not applicable',
    );
    expect(check({ csiNodes: [] })).toBe('not applicable');
  });
});
