/**
 * The remediation objects medik8s Node Healthcheck (NHC) hands a remediator: `KubeFencerRemediation`
 * (`remediation.kube-fencer.io/v1alpha1`, namespaced, deploy/crds/), which NHC creates per unhealthy
 * node from a `KubeFencerRemediationTemplate` and deletes once the node is healthy. The remediation
 * use case (lib/app/remediation/) reads them, keeps its finalizer on them and writes their status and
 * Events through this port; the Kubernetes adapter serves it (lib/adapters/kubernetes/remediations.ts).
 */

/** What NHC writes on the objects it creates and reads back from them (its published contract). */
export const NHC_ANNOTATION = {
  /** The unhealthy node's name; without it, the object's name is the node's. */
  nodeName: 'remediation.medik8s.io/node-name',
  /** Set by NHC when this remediation ran out of its time in an escalation: start nothing new. */
  timedOut: 'remediation.medik8s.io/nhc-timed-out',
  /** The template the object was made from (remediators that support several templates of a kind). */
  templateName: 'remediation.medik8s.io/template-name',
} as const;

/** The condition types NHC reads (medik8s common: Processing, Succeeded), and the fencer's own. */
export const RemediationCondition = {
  /** The remediation has started and is under way (True), or has finished (False). */
  Processing: 'Processing',
  /** NHC reads it: True once the node is fenced, False with the reason when the fencer refused or failed. */
  Succeeded: 'Succeeded',
  /** The node's fence record names the provider's proof that its machine is off. */
  PoweredOffProven: 'PoweredOffProven',
  /** The fencer's own out-of-service taint is on the node. */
  OutOfServiceTainted: 'OutOfServiceTainted',
  /** No VolumeAttachment names the fenced node any more. */
  VolumesReleased: 'VolumesReleased',
  /** While the object is being deleted: whether the node was un-fenced, and if not, why. */
  Unfenced: 'Unfenced',
} as const;
export type RemediationCondition = (typeof RemediationCondition)[keyof typeof RemediationCondition];

/** The finalizer the fencer keeps on each remediation until its node is un-fenced or was never fenced. */
export const REMEDIATION_FINALIZER = 'remediation.kube-fencer.io/unfence';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A status condition, as `metav1.Condition` holds it. */
export interface Condition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
  /** RFC 3339, whole seconds. Moves only when `status` changes. */
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

/** What a remediation may change of the fencer's request: it may make a run more careful, never less. */
export interface RemediationSpec {
  readonly dryRun?: boolean;
  readonly strategy?: 'auto' | 'out-of-service' | 'legacy';
  readonly accelerate?: boolean;
  readonly skipOsShutdown?: boolean;
  readonly limits?: {
    readonly maxUnhealthyNodes?: number;
    readonly maxUnhealthyFraction?: number;
    readonly allowControlPlane?: boolean;
    readonly leaseGraceSeconds?: number;
    readonly powerOffDeadlineSeconds?: number;
    readonly drainDeadlineSeconds?: number;
  };
}

/** The fence record of the node, as copied into the status. */
export interface FenceRecordStatus {
  readonly runId: string;
  readonly fencedAt: string;
  readonly instanceId: string;
  readonly proof: string;
  /** `key=value:effect (added …)`. */
  readonly taint: string;
  readonly blocklist?: readonly string[];
}

/** The status the fencer writes (and reads back on the next reconcile). */
export interface RemediationStatus {
  readonly conditions: readonly Condition[];
  readonly node?: string;
  /** The fencing run started for this remediation (its deterministic name). */
  readonly runName?: string;
  /** The reason of the latest Succeeded, Processing or Unfenced condition. */
  readonly lastReason?: string;
  readonly fence?: FenceRecordStatus;
  /** The last un-fence attempt, so a waiting one is retried when the node changes or after a while. */
  readonly unfenceAttempt?: { readonly at: string; readonly nodeResourceVersion: string };
  readonly lastUpdateTime?: string;
}

/** One remediation object as read: its spec and status raw, parsed by the use case's codec. */
export interface RemediationObject {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly generation: number;
  readonly annotations: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly finalizers: readonly string[];
  readonly ownerReferences: readonly { readonly kind: string; readonly name: string; readonly uid: string }[];
  /** `metadata.deletionTimestamp` is set: NHC (or someone) deleted it, and the finalizers hold it. */
  readonly deleting: boolean;
  readonly spec: unknown;
  readonly status: unknown;
}

/** An Event about a remediation object. */
export interface RemediationEvent {
  readonly type: 'Normal' | 'Warning';
  /** CamelCase, e.g. `FencingStarted`, `UnfenceRefused`. */
  readonly reason: string;
  readonly message: string;
  /** What the fencer did or decided, e.g. `Fence`, `Unfence`, `Refuse`. */
  readonly action: string;
}

/** Parses what the API server returned, at the edge (lib/config/remediation.ts). */
export interface RemediationCodec {
  /** The spec, or a ValidationError naming what is wrong with it. */
  spec(raw: unknown): RemediationSpec;
  /** The status the fencer wrote before; anything it cannot read is no status. */
  status(raw: unknown): RemediationStatus | null;
}

/** The remediation objects on the API server. */
export interface RemediationStore {
  /** Every remediation object, in every namespace, page by page. */
  list(): Promise<readonly RemediationObject[]>;
  /** Adds the fencer's finalizer (read-modify-write on resourceVersion); the object as written. */
  addFinalizer(object: RemediationObject, finalizer: string): Promise<RemediationObject>;
  /** Removes the fencer's finalizer only, leaving anyone else's; a gone object is no error. */
  removeFinalizer(object: RemediationObject, finalizer: string): Promise<void>;
  /** Replaces the status (the `status` subresource); a gone object is no error. */
  writeStatus(object: RemediationObject, status: RemediationStatus): Promise<void>;
  /** Records an Event on the object; best effort (logged, never thrown). */
  recordEvent(object: RemediationObject, event: RemediationEvent): Promise<void>;
  /**
   * Resolves 'changed' on the first change to any remediation object after the call, 'timeout' after
   * `timeoutMs`; a wake-up may be spurious (the caller lists again anyway).
   */
  waitForChange(timeoutMs: number, signal?: AbortSignal): Promise<'changed' | 'timeout'>;
}
