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
} from '../app/trigger-types.js';
import { TriggerSource } from '../ports/workflow.js';
import { clusterName, nodeName } from './fence-request.js';

/** Source and detail-type of the project's own event: put it on the default bus to ask for a fence. */
export const NODE_UNREACHABLE_EVENT = { source: 'kube-fencer', detailType: 'Node Unreachable' } as const;

/** The EC2 status-check metrics whose alarms trigger fencing. */
export const STATUS_CHECK_METRICS = [
  'StatusCheckFailed',
  'StatusCheckFailed_System',
  'StatusCheckFailed_Instance',
] as const;

/** EC2 instance states that mean the instance is already off. */
export const POWERED_OFF_STATES = ['stopped', 'terminated'] as const;

/** The AWS events handled, as `source` and `detail-type`. The CDK rules match the same pairs. */
export const AWS_EVENTS = {
  alarm: { source: 'aws.cloudwatch', detailType: 'CloudWatch Alarm State Change' },
  health: { source: 'aws.health', detailType: 'AWS Health Event' },
  ec2State: { source: 'aws.ec2', detailType: 'EC2 Instance State-change Notification' },
} as const;

const instanceId = z.string().regex(/^i-(?:[0-9a-f]{8}|[0-9a-f]{17})$/, 'not an EC2 instance id');

/** The EventBridge envelope every event has. */
const envelope = <D extends z.ZodType>(detail: D) =>
  z.object({
    version: z.string(),
    id: z.string().min(1),
    'detail-type': z.string(),
    source: z.string(),
    account: z.string(),
    time: z.string(),
    region: z.string(),
    resources: z.array(z.string()),
    detail,
  });

const alarmState = z.object({ value: z.string(), reason: z.string().optional(), timestamp: z.string() });
const alarmMetric = z.object({
  id: z.string(),
  metricStat: z
    .object({
      metric: z.object({
        namespace: z.string().optional(),
        name: z.string(),
        dimensions: z.record(z.string(), z.string()).optional(),
      }),
    })
    .optional(),
});
export const alarmEventSchema = envelope(
  z.object({
    alarmName: z.string(),
    state: alarmState,
    previousState: alarmState.optional(),
    configuration: z.object({ metrics: z.array(alarmMetric).optional() }),
  }),
);

export const healthEventSchema = envelope(
  z.object({
    eventArn: z.string(),
    service: z.string(),
    eventTypeCode: z.string(),
    eventTypeCategory: z.string(),
    statusCode: z.string().optional(),
    affectedEntities: z.array(z.object({ entityValue: z.string() })).optional(),
  }),
);

export const ec2StateEventSchema = envelope(z.object({ 'instance-id': instanceId, state: z.string() }));

export const nodeUnreachableEventSchema = envelope(
  z
    .object({
      cluster: clusterName,
      node: nodeName,
      incidentId: z
        .string()
        .regex(/^[A-Za-z0-9._:@-]{1,128}$/, 'letters, digits and ._:@- only, at most 128')
        .optional(),
    })
    .strict(),
);

const rejection = (reason: RejectReason, detail: string, source?: TriggerSource): Rejection => ({
  kind: 'rejected',
  reason,
  detail,
  ...(source ? { source } : {}),
});

const issuesOf = (error: z.ZodError): string =>
  error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');

function fromAlarm(event: z.infer<typeof alarmEventSchema>): InstancesTrigger | Rejection {
  const { alarmName, state, configuration } = event.detail;
  const source = TriggerSource.CloudWatchAlarm;
  if (state.value !== 'ALARM')
    return rejection(RejectReason.AlarmNotFiring, `${alarmName} is ${state.value}`, source);
  const names: readonly string[] = STATUS_CHECK_METRICS;
  const ids = (configuration.metrics ?? [])
    .map((m) => m.metricStat?.metric)
    .filter((m) => m?.namespace === 'AWS/EC2' && names.includes(m.name))
    .map((m) => m?.dimensions?.InstanceId);
  const valid = ids.filter((id): id is string => id !== undefined && instanceId.safeParse(id).success);
  if (valid.length === 0) {
    return rejection(
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
    .filter((v) => instanceId.safeParse(v).success);
  if (ids.length === 0)
    return rejection(RejectReason.NotEc2Issue, `${eventTypeCode} names no instance`, source);
  const detail = `Health ${eventTypeCode} (${event.detail.eventArn})`;
  return {
    kind: 'instances',
    source,
    eventId: event.id,
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
    detail: `${NODE_UNREACHABLE_EVENT.detailType} for ${cluster}/${node}`,
    cluster,
    node,
    ...(incidentId ? { incidentId } : {}),
  };
}

const HANDLERS = [
  { ...AWS_EVENTS.alarm, schema: alarmEventSchema, to: fromAlarm },
  { ...AWS_EVENTS.health, schema: healthEventSchema, to: fromHealth },
  { ...AWS_EVENTS.ec2State, schema: ec2StateEventSchema, to: fromEc2State },
  { ...NODE_UNREACHABLE_EVENT, schema: nodeUnreachableEventSchema, to: fromNodeUnreachable },
] as const;

const head = z.object({ source: z.string(), 'detail-type': z.string() });

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
