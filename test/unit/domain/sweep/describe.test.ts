/**
 * The words a sweep report is made of: durations, one line per object, and the index the rules look
 * things up in. An operator reads these lines to act; each field that selects a wording is checked here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ageSeconds,
  describeNodeState,
  formatAge,
  hasOutOfServiceTaint,
  volumesOfPod,
  zoneOf,
} from '../../../../lib/domain/sweep/index.js';
import {
  describePv,
  describeVa,
  diskProbe,
  instanceHint,
} from '../../../../lib/domain/sweep/rules/describe.js';
import { aClaim, ago, aNode, aPod, aPv, aVa, world } from './support.js';

describe('formatAge', () => {
  it.each([
    [null, 'an unknown time'],
    [0, '0s'],
    [119, '119s'],
    [120, '2m'],
    [5400, '90m'],
    [7199, '120m'],
    [7200, '2h'],
    [9000, '3h'],
  ])('%s seconds read %s', (seconds, text) => {
    expect(formatAge(seconds)).toBe(text);
  });

  it('never says more seconds than 119, nor fewer minutes than 2 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seconds) => {
        const [, n, unit] = /^(\d+)([smh])$/.exec(formatAge(seconds)) ?? [];
        const value = Number(n) * (unit === 's' ? 1 : unit === 'm' ? 60 : 3600);
        // Rounded to its unit: off by at most half a unit.
        expect(Math.abs(value - seconds)).toBeLessThanOrEqual(unit === 's' ? 0 : unit === 'm' ? 30 : 1800);
        expect(unit === 's').toBe(seconds < 120);
      }),
    );
  });
});

describe('ageSeconds', () => {
  it('counts whole seconds to the sweep’s now, never below zero, and knows no age for an unreadable time', () => {
    const index = world();
    expect(ageSeconds(ago(90), index)).toBe(90);
    expect(ageSeconds(ago(-30), index)).toBe(0);
    expect(ageSeconds('yesterday', index)).toBeNull();
    expect(ageSeconds(undefined, index)).toBeNull();
  });
});

describe('indexSnapshot', () => {
  it('refuses a snapshot whose time it cannot read', () => {
    expect(() => world({ observedAt: 'now' })).toThrow('sweep snapshot time is not ISO 8601: now');
  });

  it('groups every attachment of a node and of a PV, and leaves out one without a PV', () => {
    const inline = aVa('va-inline', { persistentVolumeName: undefined });
    const vas = [aVa('va-1'), aVa('va-2', { persistentVolumeName: 'pv-2' }), inline];
    const index = world({ volumeAttachments: vas });
    expect(index.attachmentsByNode.get('node-a')).toEqual(vas);
    expect(index.attachmentsByPv.get('pv-1')).toEqual([vas[0]]);
    expect([...index.attachmentsByPv.keys()]).toEqual(['pv-1', 'pv-2']);
  });
});

describe('node helpers', () => {
  const oos = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };

  it('tells the out-of-service taint from any other', () => {
    expect(hasOutOfServiceTaint(aNode('n', { taints: [oos] }))).toBe(true);
    expect(hasOutOfServiceTaint(aNode('n', { taints: [{ key: 'dedicated', effect: 'NoExecute' }] }))).toBe(
      false,
    );
  });

  it('reads the zone from the well-known label, or from its deprecated form', () => {
    expect(zoneOf(aNode('n'))).toBe('us-east-1a');
    expect(zoneOf(aNode('n', { labels: { 'failure-domain.beta.kubernetes.io/zone': 'eu-1b' } }))).toBe(
      'eu-1b',
    );
    expect(zoneOf(aNode('n', { labels: {} }))).toBeUndefined();
  });

  it('describes a node’s readiness, cordon and taints in one line', () => {
    const index = world();
    expect(describeNodeState(aNode('node-a', { readySince: ago(300) }), index)).toBe(
      'node node-a: Ready=True since 5m ago',
    );
    expect(
      describeNodeState(
        aNode('node-a', {
          ready: 'Unknown',
          readySince: undefined,
          unschedulable: true,
          taints: [oos, { key: 'x', effect: 'NoSchedule' }],
        }),
        index,
      ),
    ).toBe(
      'node node-a: Ready=Unknown, cordoned, taints node.kubernetes.io/out-of-service:NoExecute x:NoSchedule',
    );
  });

  it('names the machine by the providerID, else by the CSI node id, else not at all', () => {
    const va = aVa('va-1', { csiNodeId: 'i-0csi' });
    expect(instanceHint(aNode('n', { providerId: ' aws:///us-east-1a/i-0abc ' }), va)).toBe(
      'aws:///us-east-1a/i-0abc',
    );
    expect(instanceHint(aNode('n', { providerId: '  ' }), va)).toBe('i-0csi');
    expect(instanceHint(undefined, va)).toBe('i-0csi');
    expect(instanceHint(undefined)).toBeUndefined();
    expect(instanceHint(aNode('n', { providerId: undefined }), aVa('va-2'))).toBeUndefined();
  });
});

describe('volumesOfPod', () => {
  it('follows each bound claim to its PV, and skips a missing claim, an unbound one and a missing PV', () => {
    const pod = aPod('db-0', { claimNames: ['data', 'gone', 'unbound', 'lost'] });
    const index = world({
      claims: [
        aClaim('data', 'pv-1'),
        { namespace: 'default', name: 'unbound', phase: 'Pending' },
        aClaim('lost', 'pv-9'),
      ],
    });
    expect(volumesOfPod(pod, index)).toEqual([aPv('pv-1')]);
  });
});

describe('describeVa', () => {
  it('says everything a VolumeAttachment says about itself', () => {
    const va = aVa('va-1', {
      csiNodeId: 'i-0abc',
      deletionTimestamp: ago(600),
      finalizers: ['a', 'b'],
      attachError: { message: 'no slot' },
      detachError: { message: 'busy' },
    });
    expect(describeVa(va, world())).toBe(
      'VolumeAttachment va-1: attacher ebs.csi.aws.com, node node-a, pv pv-1, attached=true, created 60m ago, ' +
        'csi node-id i-0abc, deleting for 10m, finalizers a,b, attachError "no slot", detachError "busy"',
    );
  });

  it('says "(inline)" for a volume without a PV, and leaves out what is not set', () => {
    const va = aVa('va-2', { persistentVolumeName: undefined, attached: false, finalizers: [] });
    expect(describeVa(va, world())).toBe(
      'VolumeAttachment va-2: attacher ebs.csi.aws.com, node node-a, pv (inline), attached=false, created 60m ago',
    );
  });
});

describe('describePv', () => {
  it('gives the driver, handle, access modes, zones and claim', () => {
    const pv = aPv('pv-1', {
      accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
      zones: ['us-east-1a', 'us-east-1b'],
      claim: { namespace: 'db', name: 'data-0' },
    });
    expect(describePv(pv)).toBe(
      'PersistentVolume pv-1: driver ebs.csi.aws.com, handle vol-pv-1, ReadWriteOnce/ReadOnlyMany, zones us-east-1a,us-east-1b, claim db/data-0',
    );
  });

  it('says what is unknown', () => {
    const pv = aPv('pv-2', { driver: undefined, volumeHandle: undefined, accessModes: [], zones: [] });
    expect(describePv(pv)).toBe('PersistentVolume pv-2: driver unknown, handle none, no access modes');
  });
});

describe('diskProbe', () => {
  it('asks about the PV’s volume through a machine of its provider, with its driver', () => {
    expect(diskProbe(aPv('pv-1'), 'i-0abc')).toEqual([
      { volumeId: 'vol-pv-1', zones: ['us-east-1a'], via: 'i-0abc', driver: 'ebs.csi.aws.com' },
    ]);
    expect(diskProbe(aPv('pv-1', { driver: undefined }), undefined)).toEqual([
      { volumeId: 'vol-pv-1', zones: ['us-east-1a'] },
    ]);
    expect(diskProbe(aPv('pv-1', { volumeHandle: undefined }), 'i-0abc')).toEqual([]);
    expect(diskProbe(undefined, 'i-0abc')).toEqual([]);
  });
});
