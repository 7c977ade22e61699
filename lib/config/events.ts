/**
 * The EventBridge events the router handles, in the shape AWS delivers them, and the project's own
 * `Node Unreachable` event. AWS-owned shapes tolerate unknown keys (AWS adds fields, e.g. `alarmTags`);
 * our own event rejects them. Parsing yields a trigger or a rejection with a reason, never a guess.
 */
import * as z from 'zod';
import {
  type InstancesTrigger,
  type NodeTrigger,
  type ParsedTrigger,
  type Rejection,
  RejectReason,
} from '../app/triggers/trigger-types.js';
import { TRIGGER_RECORD_LIMITS, TriggerSource } from '../ports/workflow.js';
import { issuesOf, nodeUnreachableDetail, rejection } from './trigger-parsing.js';

/** Source and detail-type of the project's own event: put it on the default bus to ask for a fence. */
export const NODE_UNREACHABLE_EVENT = { source: 'kube-fencer', detailType: 'Node Unreachable' } as const;

/**
 * The EC2 status-check metrics whose alarms trigger fencing. Not `StatusCheckFailed_AttachedEBS`: an EBS
 * volume that stopped answering says nothing of the instance (docs/deploy-aws.md, "Which events start a
 * run, and why").
 */
export const STATUS_CHECK_METRICS = [
  'StatusCheckFailed',
  'StatusCheckFailed_System',
  'StatusCheckFailed_Instance',
] as const;

/** The refusal counted once for an event naming more nodes than one event may start runs for. */
export const EVENT_CAP_REASON = RejectReason.TooManyNodesInEvent;

/** EC2 instance states that mean the instance is already off. */
export const POWERED_OFF_STATES = ['stopped', 'terminated'] as const;

/** The AWS events handled, as `source` and `detail-type`. The CDK rules match the same pairs. */
export const AWS_EVENTS = {
  alarm: { source: 'aws.cloudwatch', detailType: 'CloudWatch Alarm State Change' },
  health: { source: 'aws.health', detailType: 'AWS Health Event' },
  ec2State: { source: 'aws.ec2', detailType: 'EC2 Instance State-change Notification' },
} as const;

const instanceId = z.string().regex(/^i-(?:[0-9a-f]{8}|[0-9a-f]{17})$/, 'not an EC2 instance id');

/**
 * Bounds of the fields read from events, from the services' own limits (an alarm name is at most 255
 * characters, an EventBridge id is a UUID): nothing unbounded reaches a run's input or a log line.
 */
const text = (max: number) => z.string().max(max);
/** Instances one event may name. EventBridge caps an event at 256 KB; this is the order of magnitude of that. */
export const MAX_ENTITIES_PER_EVENT = 50_000;

/**
 * The EventBridge envelope. `version` and `resources` are read by nothing here and are not always
 * there: EC2's own state-change sample has no `version`, and AWS Health documents `resources` as
 * "Required: No"; requiring either would drop a real outage as malformed.
 */
const envelope = <D extends z.ZodType>(detail: D) =>
  z.object({
    version: text(16).optional(),
    id: text(TRIGGER_RECORD_LIMITS.eventId).min(1),
    'detail-type': text(128),
    source: text(128),
    account: text(12),
    time: z.iso.datetime({ offset: true }).max(64),
    region: text(32),
    resources: z.array(text(2048)).max(MAX_ENTITIES_PER_EVENT).optional(),
    detail,
  });

/** Entries of a metric-math alarm's `Metrics` (its metrics and expressions): CloudWatch allows 20. */
export const MAX_ALARM_METRICS = 20;

const alarmState = z.object({ value: text(32), reason: text(2048).optional(), timestamp: text(64) });
const alarmMetric = z.object({
  id: text(255),
  metricStat: z
    .object({
      metric: z.object({
        namespace: text(255).optional(),
        name: text(255),
        dimensions: z.record(text(255), text(1024)).optional(),
      }),
    })
    .optional(),
});
export const alarmEventSchema = envelope(
  z.object({
    alarmName: text(255),
    state: alarmState,
    previousState: alarmState.optional(),
    configuration: z.object({ metrics: z.array(alarmMetric).max(MAX_ALARM_METRICS).optional() }),
  }),
);

export const healthEventSchema = envelope(
  z.object({
    eventArn: text(1600),
    service: text(64),
    eventTypeCode: text(128),
    eventTypeCategory: text(64),
    statusCode: text(32).optional(),
    affectedEntities: z
      // AffectedEntity documents every field "Required: No": an entity without a value names no instance.
      .array(z.object({ entityValue: text(1600).optional() }))
      .max(MAX_ENTITIES_PER_EVENT)
      .optional(),
  }),
);

export const ec2StateEventSchema = envelope(z.object({ 'instance-id': instanceId, state: text(32) }));

export const nodeUnreachableEventSchema = envelope(nodeUnreachableDetail);

function fromAlarm(event: z.infer<typeof alarmEventSchema>): InstancesTrigger | Rejection {
  const { alarmName, state, configuration } = event.detail;
  const source = TriggerSource.CloudWatchAlarm;
  if (state.value !== 'ALARM')
    return rejection(RejectReason.AlarmNotFiring, `${alarmName} is ${state.value}`, source);
  const names: readonly string[] = STATUS_CHECK_METRICS;
  const checks = (configuration.metrics ?? [])
    .map((m) => m.metricStat?.metric)
    .filter((m) => m?.namespace === 'AWS/EC2' && names.includes(m.name));
  const ids = checks.map((m) => m?.dimensions?.InstanceId);
  const valid = ids.filter((id): id is string => id !== undefined && instanceId.safeParse(id).success);
  if (valid.length === 0) {
    const group = checks.map((m) => m?.dimensions?.AutoScalingGroupName).find(Boolean);
    return group
      ? rejection(
          RejectReason.AutoScalingGroupAlarm,
          `${alarmName} watches Auto Scaling group ${group}, not one instance: alarm per instance (see RUNBOOK.md)`,
          source,
        )
      : rejection(
          RejectReason.NotStatusCheckAlarm,
          `${alarmName} watches no EC2 status check of one instance`,
          source,
        );
  }
  const detail = `alarm ${alarmName} in ALARM since ${state.timestamp}`;
  return {
    kind: 'instances',
    source,
    eventId: event.id,
    eventTime: event.time,
    detail,
    instanceIds: [...new Set(valid)],
    requireVolumeAttachments: false,
  };
}

function fromHealth(event: z.infer<typeof healthEventSchema>): InstancesTrigger | Rejection {
  const { service, eventTypeCategory, eventTypeCode, statusCode, affectedEntities } = event.detail;
  const source = TriggerSource.AwsHealth;
  if (service !== 'EC2' || eventTypeCategory !== 'issue') {
    return rejection(RejectReason.NotEc2Issue, `${service} ${eventTypeCategory} ${eventTypeCode}`, source);
  }
  if (statusCode === 'closed')
    return rejection(RejectReason.NotEc2Issue, `${eventTypeCode} is closed`, source);
  const ids = (affectedEntities ?? [])
    .map((e) => e.entityValue)
    .filter((v): v is string => instanceId.safeParse(v).success);
  if (ids.length === 0)
    return rejection(RejectReason.NotEc2Issue, `${eventTypeCode} names no instance`, source);
  const detail = `Health ${eventTypeCode} (${event.detail.eventArn})`;
  return {
    kind: 'instances',
    source,
    eventId: event.id,
    eventTime: event.time,
    detail,
    instanceIds: [...new Set(ids)],
    requireVolumeAttachments: false,
  };
}

function fromEc2State(event: z.infer<typeof ec2StateEventSchema>): InstancesTrigger | Rejection {
  const { state } = event.detail;
  const id = event.detail['instance-id'];
  const source = TriggerSource.Ec2StateChange;
  const off: readonly string[] = POWERED_OFF_STATES;
  if (!off.includes(state)) return rejection(RejectReason.NotPoweredOff, `${id} is ${state}`, source);
  const detail = `${id} ${state} at ${event.time}`;
  return {
    kind: 'instances',
    source,
    eventId: event.id,
    eventTime: event.time,
    detail,
    instanceIds: [id],
    requireVolumeAttachments: true,
  };
}

function fromNodeUnreachable(event: z.infer<typeof nodeUnreachableEventSchema>): NodeTrigger {
  const { cluster, node, incidentId } = event.detail;
  return {
    kind: 'node',
    source: TriggerSource.NodeUnreachable,
    eventId: event.id,
    eventTime: event.time,
    // The sender's incident id is its reference, kept in the record; it does not name the run.
    detail: `${NODE_UNREACHABLE_EVENT.detailType} for ${cluster}/${node}${incidentId ? ` (incident ${incidentId})` : ''}`,
    cluster,
    node,
  };
}

const HANDLERS = [
  { ...AWS_EVENTS.alarm, schema: alarmEventSchema, to: fromAlarm },
  { ...AWS_EVENTS.health, schema: healthEventSchema, to: fromHealth },
  { ...AWS_EVENTS.ec2State, schema: ec2StateEventSchema, to: fromEc2State },
  { ...NODE_UNREACHABLE_EVENT, schema: nodeUnreachableEventSchema, to: fromNodeUnreachable },
] as const;

const head = z.object({ source: text(128), 'detail-type': text(128) });

/** Parses one EventBridge event into a trigger, or says why it is not one. */
export function parseEvent(event: unknown): ParsedTrigger {
  const kind = head.safeParse(event);
  if (!kind.success)
    return rejection(RejectReason.MalformedEvent, `not an EventBridge event: ${issuesOf(kind.error)}`);
  const { source, 'detail-type': detailType } = kind.data;
  const handler = HANDLERS.find((h) => h.source === source && h.detailType === detailType);
  if (!handler) return rejection(RejectReason.UnsupportedEvent, `${source} / ${detailType}`);
  const parsed = handler.schema.safeParse(event);
  if (!parsed.success)
    return rejection(RejectReason.MalformedEvent, `${detailType}: ${issuesOf(parsed.error)}`);
  return (handler.to as (e: unknown) => ParsedTrigger)(parsed.data);
}
