/** ECS's words into the fencer's: table tests of every translation the decision table reads. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EcsInstance } from '../../../../lib/adapters/alicloud-ecs/ecs-shapes.js';
import {
  attachmentsOf,
  toDiskAttachmentState,
  toDiskAttachments,
  toInstanceIdentity,
  toLifecycle,
  toPowerEvidence,
  toPowerState,
  toStartTime,
} from '../../../../lib/adapters/alicloud-ecs/instance-evidence.js';
import { isOff } from '../../../../lib/domain/instance.js';
import { possiblyLaunchedAfter, surelyLaunchedAfter } from '../../../../lib/domain/launch-time.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');

describe('toPowerState', () => {
  it.each([
    ['Pending', 'pending'],
    ['Starting', 'pending'],
    ['Running', 'running'],
    ['Stopping', 'stopping'],
    ['Stopped', 'stopped'],
    ['Deleted', 'unknown'],
    ['stopped', 'unknown'],
    [undefined, 'unknown'],
  ])('reads ECS %s as %s', (status, state) => {
    expect(toPowerState(status)).toBe(state);
  });

  it('reads no ECS status but Stopped as off (Stopping never is)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom('Pending', 'Starting', 'Running', 'Stopping', 'Stopped'), fc.string()),
        (status) => {
          expect(isOff(toPowerState(status))).toBe(status === 'Stopped');
        },
      ),
    );
  });
});

describe('toStartTime', () => {
  it.each([
    ['2026-04-14T22:32Z', { launchTime: '2026-04-14T22:32:00.000Z', launchTimePrecision: 'minute' }],
    ['2026-04-14T22:32:45Z', { launchTime: '2026-04-14T22:32:45.000Z', launchTimePrecision: 'second' }],
    [
      '2026-04-14T22:32:45.250Z',
      { launchTime: '2026-04-14T22:32:45.250Z', launchTimePrecision: 'millisecond' },
    ],
    ['', undefined],
    ['2026-04-14 22:32', undefined],
    ['2026-13-14T22:32Z', undefined],
    [undefined, undefined],
  ])('reads %s as %o, with the precision it was written at', (raw, iso) => {
    expect(toStartTime(raw)).toEqual(iso);
  });
});

describe('ECS start times read to the minute, through the evidence', () => {
  const MINUTE = 60_000;
  const base = Date.parse('2026-04-14T22:00:00.000Z');
  const asEcsWrites = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16)}Z`;

  it('a start after an instant is always possibly after it, and surely after it only if it truly was', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: base, max: base + 10 * MINUTE }),
        fc.integer({ min: base, max: base + 10 * MINUTE }),
        (start, decision) => {
          const ev = toPowerEvidence(
            { instanceId: 'i-bp1abcdefghijklmnopq', status: 'Running', startTime: asEcsWrites(start) },
            NOW,
          );
          if (start > decision) expect(possiblyLaunchedAfter(ev, decision)).toBe(true);
          if (surelyLaunchedAfter(ev, decision)) expect(start).toBeGreaterThan(decision);
        },
      ),
    );
  });
});

describe('toLifecycle', () => {
  it.each([
    ['NoSpot', 'on-demand'],
    [undefined, 'on-demand'],
    ['SpotWithPriceLimit', 'spot'],
    ['SpotAsPriceGo', 'spot'],
  ])('reads SpotStrategy %s as %s (ECS spot instances can be stopped)', (strategy, lifecycle) => {
    expect(toLifecycle(strategy)).toBe(lifecycle);
  });
});

describe('toPowerEvidence', () => {
  it('quotes ECS verbatim and adds locks and the stopped mode to the reason', () => {
    const instance: EcsInstance = {
      instanceId: 'i-bp1abcdefghijklmnopq',
      status: 'Stopped',
      startTime: '2026-02-28T08:15Z',
      stoppedMode: 'KeepCharging',
      spotStrategy: 'SpotAsPriceGo',
      operationLocks: { lockReason: [{ lockReason: 'financial', lockMsg: 'overdue payment' }] },
    };
    expect(toPowerEvidence(instance, NOW)).toEqual({
      instanceId: 'i-bp1abcdefghijklmnopq',
      state: 'stopped',
      providerState: 'Stopped',
      stateReason: 'operation locks: financial (overdue payment); stopped mode KeepCharging',
      launchTime: '2026-02-28T08:15:00.000Z',
      launchTimePrecision: 'minute',
      lifecycle: 'spot',
      observedAt: NOW.toISOString(),
    });
  });
});

describe('toInstanceIdentity', () => {
  it('gathers every private address and host name, lower case, without duplicates', () => {
    const identity = toInstanceIdentity({
      instanceId: 'i-bp1abcdefghijklmnopq',
      hostName: 'iZbp1abcdefghijklmnopqZ',
      vpcAttributes: { privateIpAddress: { ipAddress: ['192.168.0.81'] } },
      innerIpAddress: { ipAddress: [] },
      networkInterfaces: {
        networkInterface: [
          {
            primaryIpAddress: '192.168.0.81',
            privateIpSets: {
              privateIpSet: [
                { privateIpAddress: '192.168.0.81', privateDnsName: 'Node-A.Internal' },
                { privateIpAddress: '192.168.0.90' },
              ],
            },
            ipv6Sets: { ipv6Set: [{ ipv6Address: '2408:4002::1' }] },
          },
          { primaryIpAddress: '10.1.0.5' },
        ],
      },
    });
    expect(identity).toEqual({
      instanceId: 'i-bp1abcdefghijklmnopq',
      privateIps: ['192.168.0.81', '192.168.0.90', '2408:4002::1', '10.1.0.5'],
      hostnames: ['izbp1abcdefghijklmnopqz', 'node-a.internal'],
    });
  });

  it('takes a classic-network instance’s inner address', () => {
    expect(
      toInstanceIdentity({ instanceId: 'i-1', innerIpAddress: { ipAddress: ['10.0.0.3'] } }).privateIps,
    ).toEqual(['10.0.0.3']);
  });
});

describe('disks', () => {
  it.each([
    ['In_use', 'attached'],
    ['Attaching', 'attaching'],
    ['Detaching', 'detaching'],
    ['Available', 'detached'],
    ['ReIniting', 'attached'],
    ['Creating', 'attached'],
    [undefined, 'attached'],
  ])('reads disk status %s as %s (unknown means attached)', (status, state) => {
    expect(toDiskAttachmentState(status)).toBe(state);
  });

  it('names a single-attach disk’s instance and every instance of a multi-attach disk', () => {
    expect(
      attachmentsOf({ diskId: 'd-1', status: 'In_use', instanceId: 'i-a', device: '/dev/xvdb' }),
    ).toEqual([{ instanceId: 'i-a', state: 'attached', device: '/dev/xvdb' }]);
    expect(
      attachmentsOf({
        diskId: 'd-2',
        status: 'In_use',
        instanceId: '',
        multiAttach: 'Enabled',
        attachments: { attachment: [{ instanceId: 'i-a', device: '/dev/xvdc' }, { instanceId: 'i-b' }] },
      }),
    ).toEqual([
      { instanceId: 'i-a', state: 'attached', device: '/dev/xvdc' },
      { instanceId: 'i-b', state: 'attached' },
    ]);
    expect(attachmentsOf({ diskId: 'd-3', status: 'Available', instanceId: '' })).toEqual([]);
  });

  it('marks the system disk as the boot disk and leaves out disks of other instances', () => {
    const disks = toDiskAttachments(
      [
        { diskId: 'd-sys', status: 'In_use', instanceId: 'i-a', type: 'system', device: '/dev/xvda' },
        { diskId: 'd-data', status: 'Detaching', instanceId: 'i-a', type: 'data' },
        { diskId: 'd-other', status: 'In_use', instanceId: 'i-b', type: 'data' },
      ],
      'i-a',
    );
    expect(disks).toEqual([
      { volumeId: 'd-sys', state: 'attached', device: '/dev/xvda', root: true },
      { volumeId: 'd-data', state: 'detaching', root: false },
    ]);
  });
});
