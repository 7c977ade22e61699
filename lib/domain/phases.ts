/**
 * The phases of a fencing or un-fencing run. The names are a contract: Step Functions Choice states,
 * Kubernetes Events, metrics and the CLI read them, so a name never changes once released.
 */

/** Every phase a decision can report. Fence phases first, then un-fence phases, then the shared ends. */
export const Phase = {
  /** Checking the node, its instance and the cluster before committing to anything. */
  Assess: 'Assess',
  /** The node's storage clients are being isolated (Ceph OSD blocklist), then confirmed. */
  StorageFence: 'StorageFence',
  /** A power-off has been (re-)requested from the provider. */
  PowerOff: 'PowerOff',
  /** Committed to fencing; waiting for a provider observation that proves the instance off. */
  ConfirmOff: 'ConfirmOff',
  /** Proof of off is held; adding (or waiting to add) the out-of-service taint. */
  Taint: 'Taint',
  /** Tainted; waiting for the node's pods, VolumeAttachments and disks to clear. */
  Drain: 'Drain',
  /** Done: the instance is proven off and the node's volumes are released. */
  Fenced: 'Fenced',
  /** Un-fence: checking that the node is back after a power cycle. */
  UnfenceAssess: 'UnfenceAssess',
  /** Un-fence: removing the fencer's own taint. */
  Unfence: 'Unfence',
  /** Done: no taint of the fencer's remains on the node. */
  Unfenced: 'Unfenced',
  /** Done: a safety or policy rule said no; see the reason. Nothing further is attempted. */
  Refused: 'Refused',
  /** Done: the run could not finish (deadline passed, provider unreachable); see the reason. */
  Failed: 'Failed',
  /** Done: dry run. The decision says what a real run would do next; nothing was changed. */
  DryRunReported: 'DryRunReported',
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];

/** Phases a fence run moves through, in order, before it ends. */
export const FENCE_PHASES: readonly Phase[] = [
  Phase.Assess,
  Phase.StorageFence,
  Phase.PowerOff,
  Phase.ConfirmOff,
  Phase.Taint,
  Phase.Drain,
  Phase.Fenced,
];

/** Phases an un-fence run moves through, in order, before it ends. */
export const UNFENCE_PHASES: readonly Phase[] = [Phase.UnfenceAssess, Phase.Unfence, Phase.Unfenced];

/** Phases after which the loop stops: no further step is taken. */
export const TERMINAL_PHASES: ReadonlySet<Phase> = new Set<Phase>([
  Phase.Fenced,
  Phase.Unfenced,
  Phase.Refused,
  Phase.Failed,
  Phase.DryRunReported,
]);

/** Whether the run ends with this phase. */
export const isTerminal = (phase: Phase): boolean => TERMINAL_PHASES.has(phase);
