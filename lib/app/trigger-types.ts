/**
 * The vocabulary of the triggers: what a parsed event or request says, why one is rejected, what
 * became of it, and what the trigger use cases need. Shared by lib/config (parsing) and lib/app.
 */
import type { FenceRequest } from '../domain/request.js';
import type { AuditLog, Clock, Metrics } from '../ports/audit.js';
import type { Cluster } from '../ports/cluster.js';
import type { ComputeFencer } from '../ports/compute-fencer.js';
import type { TriggerSource, Workflow } from '../ports/workflow.js';
import type { StartOutcome } from './start-run.js';

/** Why a trigger started nothing. Stable codes: metrics count them. */
export const RejectReason = {
  /** A source or detail-type the router does not handle. */
  UnsupportedEvent: 'UnsupportedEvent',
  /** A handled event type whose shape is not the one AWS (or we) deliver. */
  MalformedEvent: 'MalformedEvent',
  /** An alarm on something other than an EC2 status check with an InstanceId dimension. */
  NotStatusCheckAlarm: 'NotStatusCheckAlarm',
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
} as const;
export type RejectReason = (typeof RejectReason)[keyof typeof RejectReason];

/** What every trigger says about itself. */
export interface TriggerOrigin {
  readonly source: TriggerSource;
  readonly eventId: string;
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
  readonly incidentId?: string;
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

/** What became of one node (or one event, when it named none). */
export type TriggerOutcome =
  | (StartOutcome & { readonly node: string })
  | {
      readonly result: 'rejected';
      readonly reason: RejectReason;
      readonly detail: string;
      readonly node?: string;
    };

/** What the triggers need of the compute providers: only to read providerIDs (no provider call is made). */
export interface ProviderIdReaders {
  forProviderId(providerId: string): Pick<ComputeFencer, 'parseProviderId'> | null;
}

export interface TriggerDeps {
  readonly cluster: Pick<
    Cluster,
    'listNodes' | 'getNode' | 'listVolumeAttachments' | 'listPersistentVolumes' | 'listFencingClaims'
  >;
  readonly compute: ProviderIdReaders;
  readonly workflow: Workflow;
  readonly clock: Clock;
  readonly log: AuditLog;
  readonly metrics: Metrics;
}

/** Everything of a fence request but its target. */
export type FenceRequestDefaults = Omit<FenceRequest, 'node' | 'cluster'>;

export interface TriggerSettings {
  /** The cluster this deployment fences, as in `kubernetes.io/cluster/<name>`. */
  readonly cluster: string;
  readonly requestDefaults: FenceRequestDefaults;
}
