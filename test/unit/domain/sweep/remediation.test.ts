import { describe, expect, it } from 'vitest';
import {
  type CrossCheck,
  fencingBudget,
  judgeVolumeAttachmentDeletion,
} from '../../../../lib/domain/sweep/index.js';
import { vaNodeMissing } from '../../../../lib/domain/sweep/rules/va-node-missing.js';
import { ago, aNode, aPv, aVa, crossCheck, disk, world } from './support.js';

const INSTANCE = 'i-0aaaaaaaaaaaaaaa1';
const zombie = aVa('va-z', { nodeName: 'node-z', csiNodeId: INSTANCE });
const index = world({ volumeAttachments: [zombie] });
const verdict = vaNodeMissing.check(zombie, index);
const draft = verdict.kind === 'finding' ? verdict.draft : (undefined as never);

describe('judgeVolumeAttachmentDeletion (SAFETY.md rule 5)', () => {
  it('allows deletion when the disk is attached nowhere', () => {
    expect(
      judgeVolumeAttachmentDeletion(
        draft,
        crossCheck({ [INSTANCE]: 'terminated' }, [disk('vol-pv-1')]),
        index,
      ),
    ).toMatchObject({ allowed: true });
  });

  /** The provider's "does not exist", and whether it searched the region the PV's zones lie in. */
  const absent = (volumeId: string, searchedWhereItLives?: boolean): CrossCheck => ({
    instances: [],
    unresolved: [],
    disks: [
      {
        volumeId,
        disk: { ok: true, value: { ...disk(volumeId), exists: false, region: 'us-east-1' } },
        ...(searchedWhereItLives === undefined ? {} : { searchedWhereItLives }),
      },
    ],
  });

  it('allows deletion when the provider says the disk does not exist where its PV lives', () => {
    expect(judgeVolumeAttachmentDeletion(draft, absent('vol-pv-1', true), index)).toMatchObject({
      allowed: true,
    });
  });

  it.each([
    ['searched another region', false],
    ['did not say where it searched', undefined],
  ])('refuses "does not exist" from a provider that %s', (_, searched) => {
    const verdict = judgeVolumeAttachmentDeletion(draft, absent('vol-pv-1', searched), index);
    expect(verdict).toMatchObject({ allowed: false, reason: 'DiskAbsenceUnproven' });
    expect(verdict.allowed ? '' : verdict.detail).toContain('looked in the wrong place');
  });

  it('refuses "does not exist" for a PV that names no zone: its disk may live in any region', () => {
    const zoneless = aVa('va-n', { nodeName: 'node-z', csiNodeId: INSTANCE, persistentVolumeName: 'pv-n' });
    const i = world({ volumeAttachments: [zoneless], persistentVolumes: [aPv('pv-n', { zones: [] })] });
    const v = vaNodeMissing.check(zoneless, i);
    if (v.kind !== 'finding') throw new Error('expected a finding');
    const id = v.draft.probe.disks[0]?.volumeId ?? '';
    expect(judgeVolumeAttachmentDeletion(v.draft, absent(id, true), i)).toMatchObject({
      allowed: false,
      reason: 'DiskAbsenceUnproven',
    });
  });

  it('asks the provider about the disk with the zones its PV names', () => {
    expect(draft.probe.disks[0]?.zones).toEqual(['us-east-1a']);
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

  it('deletes only for a VolumeAttachment whose node is gone: other findings are never remediated', () => {
    expect(
      judgeVolumeAttachmentDeletion(
        { ...draft, class: 'VA_STUCK_DELETING' as never },
        crossCheck({}, [disk('vol-pv-1')]),
        index,
      ),
    ).toEqual({
      allowed: false,
      reason: 'NotRemediable',
      detail: 'VA_STUCK_DELETING findings are reported, never remediated by deletion',
    });
  });

  it('refuses when the disk was not cross-checked at all', () => {
    expect(judgeVolumeAttachmentDeletion(draft, null, index)).toEqual({
      allowed: false,
      reason: 'DiskStateUnavailable',
      detail: 'disk vol-pv-1 was not cross-checked',
    });
  });

  it('refuses a holder the provider did not report on: not observed is not off', () => {
    expect(
      judgeVolumeAttachmentDeletion(draft, crossCheck({}, [disk('vol-pv-1', [INSTANCE])]), index),
    ).toEqual({
      allowed: false,
      reason: 'DiskAttachedToLiveInstance',
      detail: `disk vol-pv-1 is attached to ${INSTANCE}, which is not proven off (instance ${INSTANCE}: not observed)`,
    });
  });

  it('refuses when any one holder may be on, even if another is proven off', () => {
    const other = 'i-0bbbbbbbbbbbbbbb2';
    const cross = crossCheck({ [INSTANCE]: 'stopped', [other]: 'running' }, [
      disk('vol-pv-1', [INSTANCE, other]),
    ]);
    expect(judgeVolumeAttachmentDeletion(draft, cross, index)).toMatchObject({
      allowed: false,
      detail: `disk vol-pv-1 is attached to ${other}, which is not proven off (instance ${other}: running)`,
    });
  });

  it('states its proof in the provider’s words', () => {
    const stoppedHolder = crossCheck({ [INSTANCE]: 'stopped' }, [disk('vol-pv-1', [INSTANCE])]);
    expect(judgeVolumeAttachmentDeletion(draft, stoppedHolder, index)).toEqual({
      allowed: true,
      proof: `disk vol-pv-1 is attached only to machines proven off (${INSTANCE})`,
    });
    expect(judgeVolumeAttachmentDeletion(draft, crossCheck({}, [disk('vol-pv-1')]), index)).toEqual({
      allowed: true,
      proof: 'the provider reports disk vol-pv-1 available and attached nowhere',
    });
    const bare = { ...disk('vol-pv-1'), providerState: undefined };
    expect(judgeVolumeAttachmentDeletion(draft, crossCheck({}, [bare]), index)).toEqual({
      allowed: true,
      proof: 'the provider reports disk vol-pv-1 and attached nowhere',
    });
    const gone = { ...disk('vol-pv-1'), exists: false, region: 'us-east-1' };
    const searched: CrossCheck = {
      instances: [],
      unresolved: [],
      disks: [{ volumeId: 'vol-pv-1', disk: { ok: true, value: gone }, searchedWhereItLives: true }],
    };
    expect(judgeVolumeAttachmentDeletion(draft, searched, index)).toEqual({
      allowed: true,
      proof: 'the provider says disk vol-pv-1 does not exist in region us-east-1',
    });
  });
});

describe('judgeVolumeAttachmentDeletion says why, in words', () => {
  const absentIn = (region: string | undefined): CrossCheck => ({
    instances: [],
    unresolved: [],
    disks: [
      {
        volumeId: 'vol-pv-1',
        disk: { ok: true, value: { ...disk('vol-pv-1'), exists: false, ...(region ? { region } : {}) } },
        searchedWhereItLives: false,
      },
    ],
  });
  const refusal = (verdict: ReturnType<typeof judgeVolumeAttachmentDeletion>) =>
    verdict.allowed ? verdict.proof : verdict.detail;

  it('names the node that exists, and the unknown PV', () => {
    const withNode = world({ volumeAttachments: [zombie], nodes: [aNode('node-z')] });
    expect(refusal(judgeVolumeAttachmentDeletion(draft, null, withNode))).toBe('node node-z exists');
    const noDisk = { ...draft, probe: { ...draft.probe, disks: [] } };
    expect(refusal(judgeVolumeAttachmentDeletion(noDisk, null, index))).toBe(
      'its PersistentVolume (and so its disk) is unknown',
    );
  });

  it('names where the provider looked for a disk it did not find, and where the PV lives', () => {
    const twoZones = {
      ...draft,
      probe: { ...draft.probe, disks: [{ volumeId: 'vol-pv-1', zones: ['us-east-1a', 'us-east-1b'] }] },
    };
    expect(refusal(judgeVolumeAttachmentDeletion(twoZones, absentIn('eu-west-1'), index))).toBe(
      'disk vol-pv-1 was not found in region eu-west-1, but its PersistentVolume lives in us-east-1a, us-east-1b: the sweep looked in the wrong place',
    );
    expect(refusal(judgeVolumeAttachmentDeletion(draft, absentIn(undefined), index))).toBe(
      'disk vol-pv-1 was not found in a region it did not name, but its PersistentVolume lives in us-east-1a: the sweep looked in the wrong place',
    );
  });

  it('takes a probe that names no zone for a PV that names none: "not found" proves nothing then', () => {
    const zoneless = { ...draft, probe: { ...draft.probe, disks: [{ volumeId: 'vol-pv-1' }] } };
    const searched = absentIn('us-east-1');
    const there = { ...searched, disks: searched.disks.map((d) => ({ ...d, searchedWhereItLives: true })) };
    expect(judgeVolumeAttachmentDeletion(zoneless, there, index)).toEqual({
      allowed: false,
      reason: 'DiskAbsenceUnproven',
      detail:
        'disk vol-pv-1 was not found in region us-east-1, but its PersistentVolume names no zone, so the disk may live elsewhere',
    });
  });

  it('lists every machine proven off that still holds the disk', () => {
    const other = 'i-0bbbbbbbbbbbbbbb2';
    const cross = crossCheck({ [INSTANCE]: 'stopped', [other]: 'terminated' }, [
      disk('vol-pv-1', [INSTANCE, other]),
    ]);
    expect(refusal(judgeVolumeAttachmentDeletion(draft, cross, index))).toBe(
      `disk vol-pv-1 is attached only to machines proven off (${INSTANCE}, ${other})`,
    );
  });
});

describe('fencingBudget (SAFETY.md rule 4)', () => {
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

  it.each([
    ['2 of 5 down: the fraction is at its limit, not past it', 2, 5, { allowed: 1 }],
    ['3 of 10 down: the count is at its limit, not past it', 3, 10, { allowed: 1 }],
    [
      '2 of 4 down: past the fraction',
      2,
      4,
      {
        allowed: 0,
        refusal: {
          reason: 'TooManyUnhealthy',
          detail:
            '2 of 4 nodes are unhealthy (limits 3 and 40%): the network, not the nodes, is probably broken',
        },
      },
    ],
    [
      '4 of 20 down: past the count',
      4,
      20,
      {
        allowed: 0,
        refusal: {
          reason: 'TooManyUnhealthy',
          detail:
            '4 of 20 nodes are unhealthy (limits 3 and 40%): the network, not the nodes, is probably broken',
        },
      },
    ],
  ])('%s', (_, unhealthy, total, budget) => {
    const nodes = Array.from({ length: total }, (_, i) => (i < unhealthy ? down(`n-${i}`) : aNode(`n-${i}`)));
    expect(fencingBudget(world({ nodes }), limits)).toEqual(budget);
  });

  it('allows what is left of the in-flight limit, and says when nothing is', () => {
    const nodes = [down('node-a'), aNode('node-b'), aNode('node-c')];
    expect(fencingBudget(world({ nodes, maxInFlight: 3, fencingsInFlight: ['node-x'] }), limits)).toEqual({
      allowed: 2,
    });
    expect(
      fencingBudget(world({ nodes, maxInFlight: 2, fencingsInFlight: ['node-x', 'node-y'] }), limits),
    ).toEqual({
      allowed: 0,
      refusal: {
        reason: 'FencingCapacityReached',
        detail: "2 fencings already in flight (the cluster's limit is 2)",
      },
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
