/**
 * What diagnose follows (pod → PVC → PV → VolumeAttachment → node → instance), as plain facts, and the
 * tree it reports. The app gathers the facts; the blocker rules read them without I/O.
 */
import type { DiskFact, InstanceFact } from '../sweep/cross-check.js';
import type { NextAction } from '../sweep/finding.js';
import type { EventSignal } from './events.js';

export interface PodFact {
  readonly namespace: string;
  readonly name: string;
  readonly nodeName?: string;
  readonly phase: string;
  readonly waitingReason?: string;
  readonly unschedulableMessage?: string;
  readonly terminating: boolean;
  readonly claimNames: readonly string[];
}

export type NodeFact =
  | { readonly name: string; readonly exists: false }
  | {
      readonly name: string;
      readonly exists: true;
      readonly ready: string;
      readonly readySince?: string;
      readonly providerId?: string;
      readonly unschedulable: boolean;
      /** Who put the out-of-service taint on, if anyone. */
      readonly outOfService: 'fencer' | 'other' | 'none';
      readonly zone?: string;
    };

export interface AttachmentFact {
  readonly name: string;
  readonly nodeName: string;
  readonly attached: boolean;
  readonly deleting: boolean;
  readonly attachError?: string;
  readonly detachError?: string;
  readonly node: NodeFact;
  /** The machine behind the node (or behind the CSI node id when the node is gone). */
  readonly instance: InstanceFact | null;
  /** Why the machine could not be observed, when it could not. */
  readonly instanceProblem?: string;
}

export interface PvFact {
  readonly name: string;
  readonly driver?: string;
  readonly volumeHandle?: string;
  readonly accessModes: readonly string[];
  readonly zones: readonly string[];
  readonly nodeBound: boolean;
  readonly nodeNames?: readonly string[];
}

export interface VolumeFact {
  readonly claim: { readonly namespace: string; readonly name: string; readonly phase?: string } | null;
  readonly pv: PvFact | null;
  readonly attachments: readonly AttachmentFact[];
  readonly disk: DiskFact | null;
  /** The pods that mount the claim, wherever they are. */
  readonly podsUsing: readonly PodFact[];
  /** Whether the PV's zone has a Ready, schedulable node; null when the PV has no zone. */
  readonly zoneHasReadyNode: boolean | null;
  /** Whether the nodes a local PV is pinned to are Ready; null when it is not a local PV. */
  readonly localNodeReady: boolean | null;
}

/** Everything one diagnosis gathered. */
export interface DiagnosisFacts {
  /** The pod diagnosed, or null for a PVC or node diagnosis. */
  readonly pod: PodFact | null;
  /** The node the pod is bound to, when it is bound. */
  readonly podNode: NodeFact | null;
  readonly volumes: readonly VolumeFact[];
  /** Storage signals from the events of the pod, claims and nodes. */
  readonly signals: readonly EventSignal[];
}

/** An Event as shown in the tree. */
export interface EventLine {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  readonly lastSeen?: string;
  readonly source?: string;
  readonly signal: EventSignal | null;
}

/** One object in the tree, with its state, details, events and what it leads to. */
export interface TreeNode {
  readonly kind:
    | 'Pod'
    | 'PersistentVolumeClaim'
    | 'PersistentVolume'
    | 'VolumeAttachment'
    | 'Node'
    | 'Instance'
    | 'Disk';
  readonly name: string;
  readonly namespace?: string;
  readonly state: string;
  readonly details: readonly string[];
  readonly events: readonly EventLine[];
  readonly children: readonly TreeNode[];
}

/** What stops the volume, in one sentence, with the objects it names. */
export interface Blocker {
  readonly code: string;
  readonly summary: string;
  readonly objects: readonly string[];
}

/** The report of `fencer diagnose`. */
export interface Diagnosis {
  readonly target: {
    readonly kind: 'pod' | 'pvc' | 'node';
    readonly name: string;
    readonly namespace?: string;
  };
  readonly observedAt: string;
  readonly tree: TreeNode;
  readonly blocker: Blocker | null;
  readonly nextAction: NextAction;
  /** How the volume kind changes the story (RWX, Local PV), as the article explains. */
  readonly notes: readonly string[];
}
