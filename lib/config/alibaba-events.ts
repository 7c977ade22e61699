/**
 * The Alibaba Cloud EventBridge events the Function Compute event router handles, in the CloudEvents
 * 1.0 shape EventBridge delivers them (one event, or a batch when the trigger batches): ECS instance
 * state changes, ECS system events (host failures and maintenance), and the project's own
 * `kube-fencer:Node:Unreachable`. Alibaba's shapes tolerate unknown keys (Alibaba adds fields); our own
 * event rejects them. Parsing yields a trigger or a rejection with a reason, never a guess.
 */
import * as z from 'zod';
import {
  type InstancesTrigger,
  type NodeTrigger,
  type ParsedTrigger,
  type Rejection,
  RejectReason,
} from '../app/triggers/trigger-types.js';
import { ValidationError } from '../domain/errors.js';
import { TriggerSource } from '../ports/workflow.js';
import { issuesOf, nodeUnreachableDetail, rejection } from './trigger-parsing.js';

/** Source and type of the project's own event: put it on the bus to ask for a fence. */
export const ALIBABA_NODE_UNREACHABLE = {
  source: 'kube-fencer',
  type: 'kube-fencer:Node:Unreachable',
} as const;

/** ECS's state-change event, and the states that mean the instance is already off (`Deleted`: released). */
export const ECS_STATE_CHANGE = 'ecs:Instance:StateChange';
export const ECS_POWERED_OFF_STATES = ['Stopped', 'Deleted'] as const;

/**
 * ECS system events that fence: the instance's host failed, or maintenance is acting on it. The
 * EventBridge rule matches exactly these types (infra-alicloud reads this list).
 */
export const ECS_SYSTEM_EVENT_TYPES = [
  'ecs:Instance:SystemFailure.Reboot',
  'ecs:Instance:SystemFailure.Redeploy',
  'ecs:Instance:SystemFailure.Stop',
  'ecs:Instance:SystemFailure.Delete',
  'ecs:Instance:InstanceFailure.Reboot',
  'ecs:Instance:SystemMaintenance.Reboot',
  // Maintenance that reboots the instance like SystemMaintenance.Reboot, isolating or re-initialising
  // a damaged local disk on the way.
  'ecs:Instance:SystemMaintenance.RebootAndIsolateErrorDisk',
  'ecs:Instance:SystemMaintenance.RebootAndReInitErrorDisk',
  'ecs:Instance:SystemMaintenance.Redeploy',
  'ecs:Instance:SystemMaintenance.Stop',
] as const;

/** System event states in which something is happening (or happened) to the instance. */
export const ECS_ACTIVE_EVENT_STATES = ['Executing', 'Executed'] as const;

/** The sources and types the router handles; the EventBridge rule matches the same. */
export const ALIBABA_EVENTS = {
  ecs: { source: 'acs.ecs', types: [ECS_STATE_CHANGE, ...ECS_SYSTEM_EVENT_TYPES] },
  own: { source: ALIBABA_NODE_UNREACHABLE.source, types: [ALIBABA_NODE_UNREACHABLE.type] },
} as const;

/** Most events one invocation accepts: EventBridge batches hold at most this many. */
export const MAX_EVENTS_PER_BATCH = 100;

/** An ECS instance id (`i-` and lowercase letters and digits). */
const ecsInstanceId = z.string().regex(/^i-[0-9a-z]{8,32}$/, 'not an ECS instance id');

/** The CloudEvents envelope every EventBridge event has. */
const envelope = <D extends z.ZodType>(data: D) =>
  z.looseObject({
    id: z.string().min(1).max(256),
    source: z.string(),
    specversion: z.string(),
    type: z.string(),
    time: z.string().optional(),
    subject: z.string().optional(),
    data,
  });

/** ECS puts the fields in `data`, or (the CloudMonitor form) in `data.content`: both are read. */
const unwrapContent = (data: unknown): unknown =>
  typeof data === 'object' && data !== null && 'content' in data
    ? (data as { content: unknown }).content
    : data;

export const ecsStateChangeSchema = envelope(
  z.preprocess(unwrapContent, z.looseObject({ resourceId: ecsInstanceId, state: z.string().min(1) })),
);

export const ecsSystemEventSchema = envelope(
  z.preprocess(
    unwrapContent,
    z
      .looseObject({
        instanceId: ecsInstanceId.optional(),
        resourceId: ecsInstanceId.optional(),
        eventId: z.string().optional(),
        eventStatus: z.string().min(1),
      })
      .refine((d) => d.instanceId !== undefined || d.resourceId !== undefined, {
        message: 'names no instance (instanceId or resourceId)',
      }),
  ),
);

export const nodeUnreachableSchema = envelope(nodeUnreachableDetail);

function fromStateChange(event: z.infer<typeof ecsStateChangeSchema>): InstancesTrigger | Rejection {
  const { resourceId: id, state } = event.data;
  const source = TriggerSource.EcsStateChange;
  const off: readonly string[] = ECS_POWERED_OFF_STATES;
  if (!off.includes(state)) return rejection(RejectReason.NotPoweredOff, `${id} is ${state}`, source);
  return {
    kind: 'instances',
    source,
    eventId: event.id,
    detail: `${id} ${state}${event.time ? ` at ${event.time}` : ''}`,
    instanceIds: [id],
    requireVolumeAttachments: true,
  };
}

function fromSystemEvent(event: z.infer<typeof ecsSystemEventSchema>): InstancesTrigger | Rejection {
  const { eventStatus, eventId } = event.data;
  const id = event.data.instanceId ?? event.data.resourceId ?? '';
  const source = TriggerSource.EcsSystemEvent;
  const what = `${event.type.replace(/^ecs:Instance:/, '')}${eventId ? ` (${eventId})` : ''}`;
  const active: readonly string[] = ECS_ACTIVE_EVENT_STATES;
  if (!active.includes(eventStatus))
    return rejection(RejectReason.InstanceEventInactive, `${what} on ${id} is ${eventStatus}`, source);
  return {
    kind: 'instances',
    source,
    eventId: event.id,
    detail: `${what} ${eventStatus} on ${id}`,
    instanceIds: [id],
    requireVolumeAttachments: false,
  };
}

function fromNodeUnreachable(event: z.infer<typeof nodeUnreachableSchema>): NodeTrigger {
  const { cluster, node, incidentId } = event.data;
  return {
    kind: 'node',
    source: TriggerSource.NodeUnreachable,
    eventId: event.id,
    // The sender's incident id is its reference, kept in the record; it does not name the run.
    detail: `node unreachable: ${cluster}/${node}${incidentId ? ` (incident ${incidentId})` : ''}`,
    cluster,
    node,
  };
}

const head = z.looseObject({ source: z.string(), type: z.string() });

/** Parses one CloudEvent into a trigger, or says why it is not one. */
export function parseAlibabaEvent(event: unknown): ParsedTrigger {
  const kind = head.safeParse(event);
  if (!kind.success)
    return rejection(RejectReason.MalformedEvent, `not a CloudEvent: ${issuesOf(kind.error)}`);
  const { source, type } = kind.data;
  const system: readonly string[] = ECS_SYSTEM_EVENT_TYPES;
  const handler =
    source === 'acs.ecs' && type === ECS_STATE_CHANGE
      ? { schema: ecsStateChangeSchema, to: fromStateChange }
      : source === 'acs.ecs' && system.includes(type)
        ? { schema: ecsSystemEventSchema, to: fromSystemEvent }
        : source === ALIBABA_NODE_UNREACHABLE.source && type === ALIBABA_NODE_UNREACHABLE.type
          ? { schema: nodeUnreachableSchema, to: fromNodeUnreachable }
          : null;
  if (!handler) return rejection(RejectReason.UnsupportedEvent, `${source} / ${type}`);
  const parsed = handler.schema.safeParse(event);
  if (!parsed.success) return rejection(RejectReason.MalformedEvent, `${type}: ${issuesOf(parsed.error)}`);
  return (handler.to as (e: unknown) => ParsedTrigger)(parsed.data);
}

/**
 * Parses what the EventBridge trigger delivers: one event, or a batch (a JSON array). A batch that is
 * empty or larger than {@link MAX_EVENTS_PER_BATCH} is one rejection; otherwise each event is parsed
 * on its own, so one bad event in a batch does not hide the others.
 */
export function parseAlibabaEvents(payload: unknown): readonly ParsedTrigger[] {
  if (!Array.isArray(payload)) return [parseAlibabaEvent(payload)];
  if (payload.length === 0) return [rejection(RejectReason.MalformedEvent, 'an empty batch of events')];
  if (payload.length > MAX_EVENTS_PER_BATCH) {
    return [
      rejection(
        RejectReason.MalformedEvent,
        `a batch of ${payload.length} events, more than ${MAX_EVENTS_PER_BATCH}`,
      ),
    ];
  }
  return payload.map(parseAlibabaEvent);
}

/** A Function Compute timer trigger's event. */
export const fcTimerEventSchema = z
  .object({
    triggerTime: z.string().min(1),
    triggerName: z.string().min(1).max(128),
    payload: z.string().optional(),
  })
  .loose();

/** The timer event's id: the trigger and the time it fired (unique per firing). */
export const timerEventId = (event: z.infer<typeof fcTimerEventSchema>): string =>
  `${event.triggerName}@${event.triggerTime}`;

/** Characters of a payload that is not JSON quoted in the error. */
const NOT_JSON_SAMPLE = 40;

/**
 * Function Compute hands events over as a Buffer of JSON; a test or a direct call may pass the object.
 * Bytes that are not JSON are a {@link ValidationError} saying so (with the parser's complaint and the
 * first characters), before any schema sees them.
 */
export function decodeFcEvent(event: unknown): unknown {
  if (!Buffer.isBuffer(event) && !(event instanceof Uint8Array)) return event;
  const text = Buffer.from(event).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const sample = text.length > NOT_JSON_SAMPLE ? `${text.slice(0, NOT_JSON_SAMPLE)}…` : text;
    throw new ValidationError(
      `the event is not JSON (${text.length} characters, starting ${JSON.stringify(sample)}): ${(error as Error).message.slice(0, 200)}`,
    );
  }
}
