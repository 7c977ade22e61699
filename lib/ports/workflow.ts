/**
 * Starting fencing runs. Implemented by `lib/adapters/aws-sfn` (a Step Functions Standard execution
 * per run); the triggers (event router, health check, manual invoke) only ever start runs through it.
 */
import type { FenceRequest } from '../domain/request.js';

/** Where a trigger came from. Metrics and the run's input carry it. */
export const TriggerSource = {
  CloudWatchAlarm: 'cloudwatch-alarm',
  AwsHealth: 'aws-health',
  Ec2StateChange: 'ec2-state-change',
  /** Alibaba Cloud EventBridge: an ECS instance stopped or released. */
  EcsStateChange: 'ecs-state-change',
  /** Alibaba Cloud EventBridge: an ECS system event (a failure or maintenance on the instance's host). */
  EcsSystemEvent: 'ecs-system-event',
  NodeUnreachable: 'node-unreachable',
  HealthCheck: 'health-check',
  Sweep: 'sweep',
  Manual: 'manual',
  /** medik8s Node Healthcheck created a KubeFencerRemediation for the node (lib/app/remediation/). */
  NhcRemediation: 'nhc-remediation',
} as const;
export type TriggerSource = (typeof TriggerSource)[keyof typeof TriggerSource];

/**
 * Bounds of a trigger record: a run's input carries one record, whatever the event that started it
 * (an AWS Health event may name thousands of instances; the record names one).
 */
export const TRIGGER_RECORD_LIMITS = {
  /** EventBridge ids, schedule ids and Lambda request ids are UUIDs; a sweep prefixes its own. */
  eventId: 128,
  detail: 256,
} as const;

/** What set a run off, kept in the execution's input for the audit trail: this run's part of the event only. */
export interface TriggerRecord {
  readonly source: TriggerSource;
  /** The event's own id (EventBridge `id`, a schedule's event id, a request id). */
  readonly eventId: string;
  /** When the event happened (EventBridge `time`), when the event says so (ISO 8601). */
  readonly eventTime?: string;
  /** One human line: which alarm, which Health event, which state change. At most 256 characters. */
  readonly detail: string;
  /** When the trigger was received (ISO 8601). */
  readonly receivedAt: string;
  /** The node this run fences. */
  readonly node: string;
  /** The instance the event named for this node, for events that name instances. */
  readonly instanceId?: string;
}

/** The input of one fencing run: the validated request and why it started. */
export interface FenceRunInput {
  readonly request: FenceRequest;
  readonly trigger: TriggerRecord;
}

/** What became of a run that was already there. `unknown` when its status could not be read. */
export type ExistingRunStatus = 'running' | 'succeeded' | 'failed' | 'unknown';

/** What {@link Workflow.start} did. A run of that name already existing is a value, not an error. */
export type StartResult =
  | { readonly kind: 'started'; readonly runId: string }
  | { readonly kind: 'exists'; readonly runId: string; readonly status: ExistingRunStatus };

/** Starts fencing runs by name: a name is used at most once, so a duplicate trigger cannot start a second run. */
export interface Workflow {
  start(name: string, input: FenceRunInput): Promise<StartResult>;
}
