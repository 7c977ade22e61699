/**
 * Alibaba Cloud EventBridge events into triggers (lib/config/alibaba-events.ts): ECS state changes and
 * system events in both shapes ECS sends (`data`, or CloudMonitor's `data.content`), the project's own
 * event, batches, and every rejection with its reason; and Function Compute's event bytes.
 */
import { describe, expect, it } from 'vitest';
import { RejectReason } from '../../../lib/app/triggers.js';
import { decodeFcEvent, parseAlibabaEvent, parseAlibabaEvents } from '../../../lib/config/alibaba-events.js';

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

  it('decodes Function Compute’s event bytes; bytes that are not JSON stay visible as such', () => {
    expect(decodeFcEvent(Buffer.from(JSON.stringify(stateChange('Stopped'))))).toEqual(
      stateChange('Stopped'),
    );
    expect(decodeFcEvent(Buffer.from(''))).toEqual({});
    expect(decodeFcEvent(Buffer.from('not json'))).toEqual({ __unparseable: 'not json' });
    expect(parseAlibabaEvent(decodeFcEvent(Buffer.from('not json')))).toMatchObject({
      reason: RejectReason.MalformedEvent,
    });
  });
});
