/**
 * What a soak records of its world, as plain JSON lines in its run folder: the world's own state sampled
 * every second, what the soak itself did to the world (the truth the fencer cannot see), the provider's
 * journal of power-off calls, the RBD clients' writes and the fencing runs' ends. The checker reads only
 * these; nothing here comes from the fencer's own account of what it did.
 */

/** The out-of-service taint's key, spelled here so the soak shares no code with the fencer. */
export const OUT_OF_SERVICE_KEY = 'node.kubernetes.io/out-of-service';

/** Machine states (EC2's and ECS's spellings) in which a machine runs nothing: it cannot write. */
export const MACHINE_OFF = new Set(['stopped', 'terminated', 'not-found', 'Stopped', 'Released']);

/** An out-of-service taint as the Node carries it. */
export interface SampledTaint {
  readonly value: string | null;
  readonly effect: string;
  readonly timeAdded: string | null;
}

/** One node at one sample. */
export interface SampledNode {
  /** The Ready condition's status: True, False, Unknown. */
  readonly ready: string;
  /** Its out-of-service taints. */
  readonly taints: readonly SampledTaint[];
  /** The `timeAdded` of the taint the fencer's record on the Node names, when there is one. */
  readonly recordedTaintAt: string | null;
  /** The machine's state as its provider reports it (running, stopping, stopped, terminated, …). */
  readonly instance: string;
  /** The kubelet's bootID: a new one is a reboot (a bare-metal host's power cycle). */
  readonly bootId?: string | null;
}

/** One volume at one sample: the nodes it is attached to, and where its pod is. */
export interface SampledVolume {
  /** A cloud disk (one machine at a time) or a network image (its clients' writes are logged). */
  readonly kind: 'disk' | 'image';
  readonly attachedTo: readonly string[];
  readonly pod: { readonly node: string | null; readonly phase: string } | null;
}

/** The world at one moment (`t`: milliseconds since the epoch). */
export interface Sample {
  readonly t: number;
  readonly nodes: Readonly<Record<string, SampledNode>>;
  readonly volumes: Readonly<Record<string, SampledVolume>>;
  /** In a Ceph world: the OSD blocklist's entries (`osd blocklist ls`, as client.admin reads it). */
  readonly blocklist?: readonly string[];
}

/** What the soak did to the world, when, and to which node. */
export interface TruthEvent {
  readonly t: number;
  /** The schedule's step that did it, for the replay. */
  readonly step?: number;
  readonly action:
    | 'cut'
    | 'reconnect'
    | 'crash'
    | 'restore'
    | 'throttle-on'
    | 'throttle-off'
    | 'stuck-stop'
    | 'mgr-pause'
    | 'mgr-resume'
    | 'apiserver-pause'
    | 'apiserver-resume'
    | 'manual-fence'
    | 'reboot'
    | 'foreign-taint-add'
    | 'foreign-taint-remove'
    | 'foreign-blocklist-add'
    | 'foreign-blocklist-remove'
    | 'unfence'
    | 'late-event';
  readonly node?: string;
  readonly detail?: string;
}

/** A power-off the provider received from the fencer (its journal, not the fencer's log). */
export interface PowerOffCall {
  readonly t: number;
  readonly node: string;
  readonly instanceId: string;
}

/** One write of an RBD client, as the client logged it. */
export interface ClientWrite {
  /** When the write was issued and when its result came (ms). */
  readonly started: number;
  readonly t: number;
  readonly node: string;
  readonly image: string;
  readonly ok: boolean;
}

/** A fencing run as its runner saw it end (the workflow's execution, the CLI's exit). */
export interface RunEnd {
  readonly name: string;
  readonly node: string;
  readonly path: 'automated' | 'manual' | 'unfence';
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly outcome: string | null;
  readonly reason: string | null;
}

/** The limits the fencer was deployed with, which the checker holds it to. */
export interface SoakLimits {
  readonly maxInFlight: number;
  readonly maxUnhealthyNodes: number;
  readonly maxUnhealthyFraction: number;
}

/** Everything a soak recorded. */
export interface SoakRecords {
  readonly world: string;
  readonly seed: number;
  /** Nodes with no machine a provider can power off (the lab still runs each on an emulated one). */
  readonly bareMetal: readonly string[];
  readonly samples: readonly Sample[];
  readonly truth: readonly TruthEvent[];
  readonly powerOffs: readonly PowerOffCall[];
  readonly writes: readonly ClientWrite[];
  readonly runs: readonly RunEnd[];
  readonly limits: SoakLimits;
}
