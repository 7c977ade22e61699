/**
 * The provider's side of a sweep finding: which machine is proven off, and the evidence lines an operator
 * reads before a VolumeAttachment is touched (SAFETY.md rule 5).
 */
import { describe, expect, it } from 'vitest';
import { liveAttachments } from '../../../../lib/domain/disk.js';
import {
  describeCrossCheck,
  describeDiskFact,
  describeInstanceFact,
  diskFact,
  instanceFact,
  maybeOn,
  provenOff,
} from '../../../../lib/domain/sweep/cross-check.js';

const at = '2026-03-01T12:00:00Z';
const fault = { name: 'ProviderApiError', message: 'Rate exceeded' };
const machine = (instanceId: string, state: string, more: object = {}) => ({
  instanceId,
  power: { ok: true as const, value: { instanceId, state: state as never, observedAt: at, ...more } },
});
const disk = (volumeId: string, attachments: { instanceId: string; state: string }[], more: object = {}) => ({
  volumeId,
  disk: {
    ok: true as const,
    value: { volumeId, exists: true, attachments: attachments as never, observedAt: at, ...more },
  },
});

describe('provenOff / maybeOn', () => {
  it('proves off only a machine the provider reported stopped, terminated or gone', () => {
    expect(provenOff(machine('i-1', 'stopped'))).toBe(true);
    expect(provenOff(machine('i-1', 'terminated'))).toBe(true);
    expect(provenOff(machine('i-1', 'stopping'))).toBe(false);
    expect(provenOff({ instanceId: 'i-1', power: { ok: false, error: fault } })).toBe(false);
    expect(provenOff(undefined)).toBe(false);
    expect(maybeOn(undefined)).toBe(true);
    expect(maybeOn(machine('i-1', 'stopped'))).toBe(false);
  });
});

describe('liveAttachments', () => {
  it('keeps every attachment but detached ones, and none for a disk that does not exist', () => {
    const value = {
      volumeId: 'vol-1',
      exists: true,
      attachments: [
        { instanceId: 'i-1', state: 'attached' as const },
        { instanceId: 'i-2', state: 'detached' as const },
        { instanceId: 'i-3', state: 'detaching' as const },
      ],
      observedAt: at,
    };
    expect(liveAttachments(value).map((a) => a.instanceId)).toEqual(['i-1', 'i-3']);
    expect(liveAttachments({ ...value, exists: false })).toEqual([]);
  });
});

describe('describe a cross-check', () => {
  it('uses the provider’s own word for a machine and its reason', () => {
    expect(
      describeInstanceFact(
        machine('i-1', 'stopped', { providerState: 'Stopped', stateReason: 'User initiated' }),
      ),
    ).toBe('instance i-1: Stopped (User initiated)');
    expect(describeInstanceFact(machine('i-1', 'running'))).toBe('instance i-1: running');
    expect(describeInstanceFact({ instanceId: 'i-1', power: { ok: false, error: fault } })).toBe(
      'instance i-1: unknown (ProviderApiError: Rate exceeded)',
    );
  });

  it('says where a disk is attached, or that it is nowhere, or gone', () => {
    expect(
      describeDiskFact(
        disk(
          'vol-1',
          [
            { instanceId: 'i-1', state: 'attached' },
            { instanceId: 'i-2', state: 'detached' },
          ],
          { providerState: 'in-use' },
        ),
      ),
    ).toBe('disk vol-1: in-use, attached to i-1');
    expect(describeDiskFact(disk('vol-1', [{ instanceId: 'i-2', state: 'detached' }]))).toBe(
      'disk vol-1: unknown state, attached nowhere',
    );
    const gone = disk('vol-1', []);
    expect(
      describeDiskFact({ ...gone, disk: { ok: true, value: { ...gone.disk.value, exists: false } } }),
    ).toBe('disk vol-1: not found at the provider');
    expect(
      describeDiskFact({
        ...gone,
        disk: { ok: true, value: { ...gone.disk.value, exists: false, region: 'eu-west-1' } },
      }),
    ).toBe('disk vol-1: not found in region eu-west-1');
    expect(describeDiskFact({ volumeId: 'vol-1', disk: { ok: false, error: fault } })).toBe(
      'disk vol-1: unknown (ProviderApiError: Rate exceeded)',
    );
  });

  it('lists machines, disks and what could not be checked, and finds each fact by id', () => {
    const cross = {
      instances: [machine('i-1', 'stopped')],
      disks: [disk('vol-1', [])],
      unresolved: ['gce://p/z/vm: no provider configured'],
    };
    expect(describeCrossCheck(cross)).toEqual([
      'instance i-1: stopped',
      'disk vol-1: unknown state, attached nowhere',
      'not cross-checked: gce://p/z/vm: no provider configured',
    ]);
    expect(instanceFact(cross, 'i-1')).toBe(cross.instances[0]);
    expect(instanceFact(cross, 'i-2')).toBeUndefined();
    expect(instanceFact(null, 'i-1')).toBeUndefined();
    expect(diskFact(cross, 'vol-1')).toBe(cross.disks[0]);
    expect(diskFact(cross, 'vol-2')).toBeUndefined();
  });
});
