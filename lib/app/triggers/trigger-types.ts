/**
 * The vocabulary of the triggers: what a parsed event or request says, why one is rejected, what
 * became of it, and what the trigger use cases need. Shared by lib/config (parsing) and lib/app.
 */
import type { FenceRequest } from '../../domain/request.js';
import type { AuditLog, Clock, Metrics } from '../../ports/audit.js';
import type { FencingClaimsLedger, NodeReads, WorkloadReads } from '../../ports/cluster.js';
import type { TriggerSource, Workflow } from '../../ports/workflow.js';
import type { NodeIndex, ProviderIdReaders } from './node-index.js';

export type { ProviderIdReaders } from './node-index.js';

import type { StartOutcome } from './start-run.js';

/** Why a trigger started nothing. Stable codes: metrics count them. */
export const RejectReason = {
  /** A source or detail-type the router does not handle. */
  UnsupportedEvent: 'UnsupportedEvent',
  /** A handled event type whose shape is not the one AWS (or we) deliver. */
  MalformedEvent: 'MalformedEvent',
  /** An alarm on something other than an EC2 status check with an InstanceId dimension. */
  NotStatusCheckAlarm: 'NotStatusCheckAlarm',
  /**
   * A status-check alarm on an Auto Scaling group (dimension AutoScalingGroupName): it says that some
   * instance of the group failed, not which one, and fencing needs the instance.
   */
  AutoScalingGroupAlarm: 'AutoScalingGroupAlarm',
  /** An alarm that moved to OK or INSUFFICIENT_DATA. */
  AlarmNotFiring: 'AlarmNotFiring',
  /** A Health event that is not an open EC2 issue naming instances. */
  NotEc2Issue: 'NotEc2Issue',
  /** An EC2 state change to anything but stopped or terminated. */
  NotPoweredOff: 'NotPoweredOff',
  /** An ECS system event that is scheduled, avoided, canceled or being inquired: nothing has happened yet. */
  InstanceEventInactive: 'InstanceEventInactive',
  /** An event about another cluster. */
  OtherCluster: 'OtherCluster',
  /** No node of this cluster has that instance as its providerID. */
  NoMatchingNode: 'NoMatchingNode',
  NodeNotFound: 'NodeNotFound',
  /** The instance is already off and its node holds no VolumeAttachments: nothing to release. */
  NothingToRelease: 'NothingToRelease',
  /** Every run name of the incident was used by runs that ended without fencing. */
  RunsExhausted: 'RunsExhausted',
  /**
   * The event named more nodes than one event may start runs for (the router's per-event cap): the
   * rest are refused together, counted once for the event, as the blast-radius rule counts.
   */
  TooManyNodesInEvent: 'TooManyNodesInEvent',
} as const;
export type RejectReason = (typeof RejectReason)[keyof typeof RejectReason];

/** What every trigger says about itself; bounded as lib/ports/workflow.ts `TRIGGER_RECORD_LIMITS` says. */
export interface TriggerOrigin {
  readonly source: TriggerSource;
  readonly eventId: string;
  /** When the event happened, if it says (ISO 8601). */
  readonly eventTime?: string;
  readonly detail: string;
}

/** A trigger naming instances (alarms, Health events, EC2 state changes). */
export interface InstancesTrigger extends TriggerOrigin {
  readonly kind: 'instances';
  readonly instanceIds: readonly string[];
  /** Only start a run when the node still holds VolumeAttachments (the instance is already off). */
  readonly requireVolumeAttachments: boolean;
}

/** A trigger naming a node (our own event, a manual request). */
export interface NodeTrigger extends TriggerOrigin {
  readonly kind: 'node';
  readonly cluster: string;
  readonly node: string;
  /** A full request (manual invoke); the configured defaults otherwise. */
  readonly request?: FenceRequest;
}

export type Trigger = InstancesTrigger | NodeTrigger;

/** An event that names no node, and why. */
export interface Rejection {
  readonly kind: 'rejected';
  readonly reason: RejectReason;
  readonly detail: string;
  readonly source?: TriggerSource;
}

/** What the router was given: a parsed trigger or the reason parsing refused it. */
export type ParsedTrigger = Trigger | Rejection;

/** A start that threw (Step Functions unreachable, throttled, denied): the event is to be delivered again. */
export interface FailedStart {
  readonly result: 'failed';
  readonly node: string;
  readonly runName?: string;
  readonly error: string;
}

/**
 * What became of one node, or of every node and instance rejected for one reason: rejections are
 * aggregated per event (`count` of them, `detail` naming a sample), so an event naming thousands of
 * instances yields a handful of outcomes.
 */
export type TriggerOutcome =
  | (StartOutcome & { readonly node: string })
  | FailedStart
  | {
      readonly result: 'rejected';
      readonly reason: RejectReason;
      readonly detail: string;
      readonly node?: string;
      /** How many nodes or instances of the event this rejection stands for. @default 1 */
      readonly count?: number;
    };

export interface TriggerDeps {
  /** Reads only: the triggers start runs, and never write to the cluster themselves. */
  readonly cluster: Pick<NodeReads, 'listNodeReadiness' | 'listNodeProviderIds' | 'getNode'> &
    Pick<WorkloadReads, 'listVolumeAttachments' | 'getPersistentVolume' | 'listPersistentVolumes'> &
    Pick<FencingClaimsLedger, 'listFencingClaims'>;
  readonly compute: ProviderIdReaders;
  readonly workflow: Workflow;
  readonly clock: Clock;
  readonly log: AuditLog;
  readonly metrics: Metrics;
  /**
   * Kept across invocations by a long-lived runtime, so that a burst of EC2 state changes does not
   * list every node once per event. @default none: every event lists the nodes
   */
  readonly nodeIndex?: NodeIndex;
}

/** Everything of a fence request but its target. */
export type FenceRequestDefaults = Omit<FenceRequest, 'node' | 'cluster'>;

/** Runs one event may start when the deployment does not say: more nodes named at once is an outage of another kind. */
export const DEFAULT_MAX_RUNS_PER_EVENT = 10;

export interface TriggerSettings {
  /** The cluster this deployment fences, as in `kubernetes.io/cluster/<name>`. */
  readonly cluster: string;
  readonly requestDefaults: FenceRequestDefaults;
  /**
   * Runs one event may start; the nodes beyond are refused with `TooManyNodesInEvent`, counted once.
   * @default DEFAULT_MAX_RUNS_PER_EVENT
   */
  readonly maxRunsPerEvent?: number;
}
