import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fencingBudget, judgeVolumeAttachmentDeletion } from '../../../../lib/domain/sweep/index.js';
import { vaNodeMissing } from '../../../../lib/domain/sweep/rules/va-node-missing.js';
import { ago, aNode, aPv, aVa, crossCheck, disk, world } from './support.js';

const INSTANCE = 'i-0aaaaaaaaaaaaaaa1';
const zombie = aVa('va-z', { nodeName: 'node-z', csiNodeId: INSTANCE });
const index = world({ volumeAttachments: [zombie] });
const verdict = vaNodeMissing.check(zombie, index);
const draft = verdict.kind === 'finding' ? verdict.draft : (undefined as never);

describe('judgeVolumeAttachmentDeletion (safety.md rule 5)', () => {
  it('allows deletion when the disk is attached nowhere', () => {
    expect(
      judgeVolumeAttachmentDeletion(
        draft,
        crossCheck({ [INSTANCE]: 'terminated' }, [disk('vol-pv-1')]),
        index,
      ),
    ).toMatchObject({ allowed: true });
  });

  it('allows deletion when the provider says the disk does not exist in the region of its PV’s zone', () => {
    const gone = { ...disk('vol-pv-1'), exists: false, region: 'us-east-1' };
    expect(judgeVolumeAttachmentDeletion(draft, crossCheck({}, [gone]), index)).toMatchObject({
      allowed: true,
    });
  });

  it('refuses "does not exist" from another region: the sweep looked in the wrong place', () => {
    const gone = { ...disk('vol-pv-1'), exists: false, region: 'eu-west-1' };
    expect(judgeVolumeAttachmentDeletion(draft, crossCheck({}, [gone]), index)).toMatchObject({
      allowed: false,
      reason: 'DiskAbsenceUnproven',
    });
  });

  it('refuses "does not exist" from a provider that does not say where it looked', () => {
    const gone = { ...disk('vol-pv-1'), exists: false };
    expect(judgeVolumeAttachmentDeletion(draft, crossCheck({}, [gone]), index)).toMatchObject({
      allowed: false,
      reason: 'DiskAbsenceUnproven',
    });
  });

  it('refuses "does not exist" for a PV that names no zone: its disk may live in any region', () => {
    const zoneless = aVa('va-n', { nodeName: 'node-z', csiNodeId: INSTANCE, persistentVolumeName: 'pv-n' });
    const i = world({ volumeAttachments: [zoneless], persistentVolumes: [aPv('pv-n', { zones: [] })] });
    const v = vaNodeMissing.check(zoneless, i);
    if (v.kind !== 'finding') throw new Error('expected a finding');
    const gone = { ...disk(v.draft.probe.disks[0]?.volumeId ?? ''), exists: false, region: 'us-east-1' };
    expect(judgeVolumeAttachmentDeletion(v.draft, crossCheck({}, [gone]), i)).toMatchObject({
      allowed: false,
      reason: 'DiskAbsenceUnproven',
    });
  });

  it('counts "does not exist" as proof exactly when every zone of the PV lies in the region searched', () => {
    const region = fc.constantFrom('us-east-1', 'us-east-10', 'eu-west-1', 'cn-hangzhou', 'us-west-2');
    const zone = fc
      .tuple(region, fc.constantFrom('a', 'b', '-lax-1a', '-h', '0a'))
      .map(([r, suffix]) => `${r}${suffix}`);
    fc.assert(
      fc.property(region, fc.array(zone, { maxLength: 3 }), (searched, zones) => {
        const zoned = aVa('va-p', { nodeName: 'node-z', csiNodeId: INSTANCE, persistentVolumeName: 'pv-p' });
        const i = world({ volumeAttachments: [zoned], persistentVolumes: [aPv('pv-p', { zones })] });
        const v = vaNodeMissing.check(zoned, i);
        if (v.kind !== 'finding') throw new Error('expected a finding');
        const id = v.draft.probe.disks[0]?.volumeId ?? '';
        const gone = { ...disk(id), exists: false, region: searched };
        // The oracle, spelled out: each zone is the searched region plus a letter or a dash-suffix.
        const inRegion = (z: string) => z.startsWith(searched) && /^[a-z-]/.test(z.slice(searched.length));
        const expected = zones.length > 0 && zones.every(inRegion);
        expect(judgeVolumeAttachmentDeletion(v.draft, crossCheck({}, [gone]), i).allowed).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('allows deletion when the disk is attached only to a stopped instance (a clean detach follows)', () => {
    const cross = crossCheck({ [INSTANCE]: 'stopped' }, [disk('vol-pv-1', [INSTANCE])]);
    expect(judgeVolumeAttachmentDeletion(draft, cross, index)).toMatchObject({ allowed: true });
  });

  it.each(['running', 'stopping', 'pending', 'unknown'])(
    'refuses while the disk is attached to a %s instance',
    (state) => {
      const cross = crossCheck({ [INSTANCE]: state }, [disk('vol-pv-1', [INSTANCE])]);
      expect(judgeVolumeAttachmentDeletion(draft, cross, index)).toMatchObject({
        allowed: false,
        reason: 'DiskAttachedToLiveInstance',
      });
    },
  );

  it('refuses when the disk could not be observed (a provider error is not proof)', () => {
    const cross = {
      instances: [],
      unresolved: [],
      disks: [
        {
          volumeId: 'vol-pv-1',
          disk: { ok: false as const, error: { name: 'Throttling', message: 'slow down' } },
        },
      ],
    };
    expect(judgeVolumeAttachmentDeletion(draft, cross, index)).toMatchObject({
      allowed: false,
      reason: 'DiskStateUnavailable',
    });
  });

  it('refuses when the node exists (the taint, not deletion, is the cure)', () => {
    const withNode = world({ volumeAttachments: [zombie], nodes: [aNode('node-z')] });
    expect(judgeVolumeAttachmentDeletion(draft, crossCheck({}, [disk('vol-pv-1')]), withNode)).toMatchObject({
      allowed: false,
      reason: 'NodeExists',
    });
  });

  it('refuses when the PV, and so the disk, is unknown', () => {
    const orphan = aVa('va-o', { nodeName: 'node-z', persistentVolumeName: 'pv-gone' });
    const i = world({ volumeAttachments: [orphan] });
    const v = vaNodeMissing.check(orphan, i);
    if (v.kind !== 'finding') throw new Error('expected a finding');
    expect(judgeVolumeAttachmentDeletion(v.draft, null, i)).toMatchObject({
      allowed: false,
      reason: 'DiskUnknown',
    });
  });
});

describe('fencingBudget (safety.md rule 4)', () => {
  const limits = { maxUnhealthyNodes: 3, maxUnhealthyFraction: 0.4 };
  const down = (name: string) => aNode(name, { ready: 'Unknown', readySince: ago(600) });

  it('allows one fencing when one of two nodes is down (the fraction speaks only past one node)', () => {
    expect(fencingBudget(world({ nodes: [down('node-a'), aNode('node-b')] }), limits)).toEqual({
      allowed: 1,
    });
  });

  it('allows none when too many nodes are unhealthy at once', () => {
    const nodes = [down('a'), down('b'), aNode('c'), aNode('d')];
    expect(fencingBudget(world({ nodes }), limits)).toMatchObject({
      allowed: 0,
      refusal: { reason: 'TooManyUnhealthy' },
    });
  });

  it('allows none while the in-flight limit is reached', () => {
    const index = world({
      nodes: [down('node-a'), aNode('node-b'), aNode('node-c')],
      fencingsInFlight: ['node-x'],
    });
    expect(fencingBudget(index, limits)).toMatchObject({
      allowed: 0,
      refusal: { reason: 'FencingCapacityReached' },
    });
  });
});
