/**
 * The sweep table: one rule per class, in report order. `classify()` walks every rule over its
 * subjects and collects the findings; `conclude()` adds the provider cross-check and the next safe
 * action. Both are pure.
 */
import type { SweepClass } from './classes.js';
import type { CrossCheck } from './cross-check.js';
import type { Finding, FindingDraft, SweepRule } from './finding.js';
import { noAttachCapacity } from './rules/no-attach-capacity.js';
import { noHealthyNodeInPvZone } from './rules/no-healthy-node-in-pv-zone.js';
import { scImmediateBinding } from './rules/sc-immediate-binding.js';
import { taintLeftBehind } from './rules/taint-left-behind.js';
import { targetAttachStuck } from './rules/target-attach-stuck.js';
import { vaNodeMissing } from './rules/va-node-missing.js';
import { vaOnNotReadyNode } from './rules/va-on-not-ready-node.js';
import { vaPvMissing } from './rules/va-pv-missing.js';
import { vaStuckDeleting } from './rules/va-stuck-deleting.js';
import type { SweepIndex } from './sweep-index.js';

/** A rule with its subject type erased, so rules of different subjects share one table. */
export interface TableRule {
  readonly class: SweepClass;
  readonly contract: string;
  run(index: SweepIndex): FindingDraft[];
  advise: SweepRule<unknown>['advise'];
}

const erase = <S>(rule: SweepRule<S>): TableRule => ({
  class: rule.class,
  contract: rule.contract,
  run(index) {
    const drafts: FindingDraft[] = [];
    for (const subject of rule.subjects(index)) {
      const verdict = rule.check(subject, index);
      if (verdict.kind === 'finding') drafts.push(verdict.draft);
    }
    return drafts;
  },
  advise: rule.advise,
});

/** Every sweep class, in the order reports list them. */
export const SWEEP_TABLE: readonly TableRule[] = [
  erase(vaNodeMissing),
  erase(vaPvMissing),
  erase(vaStuckDeleting),
  erase(vaOnNotReadyNode),
  erase(targetAttachStuck),
  erase(taintLeftBehind),
  erase(noHealthyNodeInPvZone),
  erase(scImmediateBinding),
  erase(noAttachCapacity),
];

/** Every finding in the snapshot, before the provider is asked. */
export const classify = (index: SweepIndex): FindingDraft[] => SWEEP_TABLE.flatMap((rule) => rule.run(index));

/** A finding with its cross-check and next safe action. */
export function conclude(draft: FindingDraft, cross: CrossCheck | null, index: SweepIndex): Finding {
  const rule = SWEEP_TABLE.find((r) => r.class === draft.class);
  if (!rule) throw new Error(`no sweep rule for class ${draft.class}`);
  return {
    ...draft,
    id: `${draft.class}/${draft.key}`,
    crossCheck: cross,
    nextAction: rule.advise(draft, cross, index),
    remediation: null,
  };
}
