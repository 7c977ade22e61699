/**
 * What a sweep reports: findings with their objects, evidence, provider cross-check and the next safe
 * action; and the shape of a sweep rule. A rule is tri-state like a cdk-nag rule: for each subject it
 * is compliant, not applicable, or a finding.
 */
import { Compliant, NotApplicable } from '../decision.js';
import type { SweepClass } from './classes.js';
import type { CrossCheck, ProviderProbe } from './cross-check.js';
import type { SweepIndex } from './sweep-index.js';

export { Compliant, NotApplicable };

/** A Kubernetes object a finding is about. */
export interface FindingObject {
  readonly kind:
    | 'Node'
    | 'VolumeAttachment'
    | 'PersistentVolume'
    | 'PersistentVolumeClaim'
    | 'Pod'
    | 'StorageClass'
    | 'CSINode';
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
}

/** What to do about a finding. */
export const NextActionKind = {
  FenceNode: 'fence-node',
  DeleteVolumeAttachment: 'delete-volume-attachment',
  UnfenceNode: 'unfence-node',
  Wait: 'wait',
  Investigate: 'investigate',
  RestoreZone: 'restore-zone',
  FixStorageClass: 'fix-storage-class',
  AddAttachCapacity: 'add-attach-capacity',
} as const;
export type NextActionKind = (typeof NextActionKind)[keyof typeof NextActionKind];

/** The next safe action, in words and (where there is one) as a command. */
export interface NextAction {
  readonly kind: NextActionKind;
  readonly description: string;
  readonly command?: string;
  /** Whether `fencer sweep --remediate` may take this action itself (SAFETY.md rule 5). */
  readonly automatic: boolean;
}

/** A finding as a rule raises it, before the provider is asked. */
export interface FindingDraft {
  readonly class: SweepClass;
  /** The primary object's name: with the class, the finding's stable id. */
  readonly key: string;
  readonly summary: string;
  readonly objects: readonly FindingObject[];
  readonly evidence: readonly string[];
  readonly probe: ProviderProbe;
}

/** What `--remediate` did about a finding. */
export interface RemediationResult {
  readonly status: 'done' | 'dry-run' | 'refused' | 'failed' | 'skipped';
  /** A stable code for a refusal or skip, e.g. `DiskAttachedToLiveInstance`. */
  readonly reason?: string;
  readonly detail: string;
}

/** A finding as reported. */
export interface Finding extends FindingDraft {
  /** `<class>/<key>`: the same trouble gets the same id sweep after sweep. */
  readonly id: string;
  readonly crossCheck: CrossCheck | null;
  readonly nextAction: NextAction;
  readonly remediation: RemediationResult | null;
}

/** What a sweep rule says about one subject. */
export type SweepVerdict =
  | typeof Compliant
  | typeof NotApplicable
  | { readonly kind: 'finding'; readonly draft: FindingDraft };

/** Raise a finding. */
export const finding = (draft: FindingDraft): SweepVerdict => ({ kind: 'finding', draft });

/** A sweep rule: one class, one small pure check per subject, and the advice once the provider answered. */
export interface SweepRule<S> {
  readonly class: SweepClass;
  /** The source of the rule (the SAFETY.md rule, or what the class detects), for a reader checking the table. */
  readonly contract: string;
  /** The objects the rule looks at. */
  subjects(index: SweepIndex): Iterable<S>;
  check(subject: S, index: SweepIndex): SweepVerdict;
  /** The next safe action, given what the provider said (null when it was not asked). */
  advise(draft: FindingDraft, cross: CrossCheck | null, index: SweepIndex): NextAction;
}
