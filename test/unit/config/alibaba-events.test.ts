/**
 * Alibaba Cloud EventBridge events into triggers (lib/config/alibaba-events.ts): ECS state changes and
 * system events in both shapes ECS sends (`data`, or CloudMonitor's `data.content`), the project's own
 * event, batches, and every rejection with its reason; and Function Compute's event bytes.
 */
import { describe, expect, it } from 'vitest';
import { RejectReason } from '../../../lib/app/triggers/index.js';
import {
  ALIBABA_EVENTS,
  decodeFcEvent,
  parseAlibabaEvent,
  parseAlibabaEvents,
} from '../../../lib/config/alibaba-events.js';

const envelope = (type: string, data: unknown, source = 'acs.ecs') => ({
  id: `evt-${type}`,
  source,
  specversion: '1.0',
  type,
  time: '2026-12-01T00:00:00Z',
  data,
});
const stateChange = (state: string) =>
  envelope('ecs:Instance:StateChange', {
    resourceId: 'i-bp1abcdefgh12345',
    resourceType: 'ALIYUN::ECS::Instance',
    state,
  });

describe('Alibaba Cloud events', () => {
  it('turns an instance Stopped or Deleted into a trigger for that instance, holding volumes', () => {
    for (const state of ['Stopped', 'Deleted']) {
      expect(parseAlibabaEvent(stateChange(state))).toMatchObject({
        kind: 'instances',
        source: 'ecs-state-change',
        instanceIds: ['i-bp1abcdefgh12345'],
        requireVolumeAttachments: true,
      });
    }
  });

  it('rejects any other state as NotPoweredOff', () => {
    for (const state of ['Running', 'Stopping', 'Starting']) {
      expect(parseAlibabaEvent(stateChange(state))).toMatchObject({
        kind: 'rejected',
        reason: RejectReason.NotPoweredOff,
      });
    }
  });

  it('reads CloudMonitor’s form, the fields under data.content', () => {
    const event = envelope('ecs:Instance:StateChange', {
      content: { resourceId: 'i-bp1abcdefgh12345', state: 'Stopped' },
    });
    expect(parseAlibabaEvent(event)).toMatchObject({
      kind: 'instances',
      instanceIds: ['i-bp1abcdefgh12345'],
    });
  });

  it('starts on a system event that is executing or executed, and rejects one only scheduled', () => {
    const event = (eventStatus: string) =>
      envelope('ecs:Instance:SystemFailure.Stop', {
        instanceId: 'i-bp1abcdefgh12345',
        eventId: 'e-1',
        eventStatus,
      });
    expect(parseAlibabaEvent(event('Executing'))).toMatchObject({
      kind: 'instances',
      source: 'ecs-system-event',
    });
    expect(parseAlibabaEvent(event('Executed'))).toMatchObject({ kind: 'instances' });
    for (const status of ['Scheduled', 'Avoided', 'Canceled', 'Inquiring']) {
      expect(parseAlibabaEvent(event(status))).toMatchObject({ reason: RejectReason.InstanceEventInactive });
    }
  });

  it('turns the project’s own event into a trigger for the node it names', () => {
    const own = envelope(
      'kube-fencer:Node:Unreachable',
      { cluster: 'prod', node: 'cn-hangzhou.192.168.0.8' },
      'kube-fencer',
    );
    expect(parseAlibabaEvent(own)).toMatchObject({
      kind: 'node',
      cluster: 'prod',
      node: 'cn-hangzhou.192.168.0.8',
    });
  });

  it('rejects with a reason: another service’s event, a malformed one, one that is not an event', () => {
    expect(parseAlibabaEvent(envelope('oss:ObjectCreated:PutObject', {}, 'acs.oss'))).toMatchObject({
      reason: RejectReason.UnsupportedEvent,
    });
    expect(parseAlibabaEvent(envelope('ecs:Instance:StateChange', { state: 'Stopped' }))).toMatchObject({
      reason: RejectReason.MalformedEvent,
    });
    expect(parseAlibabaEvent(stateChange('Stopped').data)).toMatchObject({
      reason: RejectReason.MalformedEvent,
    });
    expect(parseAlibabaEvent('{')).toMatchObject({ reason: RejectReason.MalformedEvent });
  });

  it('takes one event or a batch, each parsed on its own', () => {
    expect(parseAlibabaEvents(stateChange('Stopped'))).toHaveLength(1);
    const batch = parseAlibabaEvents([stateChange('Stopped'), stateChange('Running'), { nonsense: true }]);
    expect(batch.map((t) => (t.kind === 'rejected' ? t.reason : t.kind))).toEqual([
      'instances',
      RejectReason.NotPoweredOff,
      RejectReason.MalformedEvent,
    ]);
    expect(parseAlibabaEvents([])).toMatchObject([{ reason: RejectReason.MalformedEvent }]);
    expect(parseAlibabaEvents(Array.from({ length: 101 }, () => stateChange('Stopped')))).toMatchObject([
      { reason: RejectReason.MalformedEvent, detail: expect.stringContaining('more than 100') },
    ]);
  });

  it('decodes Function Compute’s event bytes', () => {
    expect(decodeFcEvent(Buffer.from(JSON.stringify(stateChange('Stopped'))))).toEqual(
      stateChange('Stopped'),
    );
    expect(decodeFcEvent(Buffer.from(''))).toEqual({});
  });

  it('says bytes that are not JSON are not JSON, quoting their start, not "Unrecognized key"', () => {
    const decode = () => decodeFcEvent(Buffer.from(`node-a please ${'x'.repeat(100_000)}`));
    expect(decode).toThrow(
      expect.objectContaining({
        name: 'ValidationError',
        message: expect.stringMatching(
          /^the event is not JSON \(100014 characters, starting "node-a please x{26}…"\): /,
        ),
      }),
    );
    expect(() => decode()).not.toThrow(/nrecognized/);
    let message = '';
    try {
      decode();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.length).toBeLessThan(400);
  });

  it.each([
    'ecs:Instance:SystemMaintenance.Reboot',
    'ecs:Instance:SystemMaintenance.RebootAndIsolateErrorDisk',
    'ecs:Instance:SystemMaintenance.RebootAndReInitErrorDisk',
  ])('understands %s, which reboots the instance, as a system event that fences', (type) => {
    const event = envelope(type, {
      instanceId: 'i-bp1abcdefgh12345',
      eventId: 'e-2',
      eventStatus: 'Executing',
    });
    expect(parseAlibabaEvent(event)).toMatchObject({
      kind: 'instances',
      source: 'ecs-system-event',
      instanceIds: ['i-bp1abcdefgh12345'],
    });
    expect(ALIBABA_EVENTS.ecs.types).toContain(type);
  });
});
