/**
 * What blocks a volume, as a table of small rules walked in order (the first that speaks wins), and the
 * next safe action. Like decide(): pure, and every action it suggests respects SAFETY.md (a live node
 * is never fenced; a VolumeAttachment is deleted only by the sweep, with provider proof).
 */
import { NextActionKind } from '../sweep/finding.js';
import { action, type BlockerRule, type BlockerVerdict } from './blocker-kit.js';
import { holderOnDeadNode, holderOnGoneNode, holderOnLiveNode, podStuckTerminating } from './holder-rules.js';
import type { DiagnosisFacts } from './model.js';
import { attachFailing, localPv, zoneDown } from './placement-rules.js';
import { imageStillWatched } from './storage-rules.js';

export type { BlockerRule, BlockerVerdict } from './blocker-kit.js';

/** The per-volume rules, in the order they are asked (after the pod-level one). */
export const BLOCKER_TABLE: readonly BlockerRule[] = [
  localPv,
  holderOnGoneNode,
  holderOnDeadNode,
  holderOnLiveNode,
  imageStillWatched,
  attachFailing,
  zoneDown,
];

/** The first blocker any volume has, or "nothing blocks" with where the volume is. */
export function findBlocker(facts: DiagnosisFacts): BlockerVerdict {
  const stuck = podStuckTerminating.check(facts);
  if (stuck) return stuck;
  for (const volume of facts.volumes) {
    for (const rule of BLOCKER_TABLE) {
      const verdict = rule.check(facts, volume);
      if (verdict) return verdict;
    }
  }
  const where = facts.volumes
    .flatMap((v) =>
      v.attachments.filter((a) => a.attached).map((a) => `${v.pv?.name ?? '?'} attached to ${a.nodeName}`),
    )
    .join('; ');
  return {
    blocker: null,
    nextAction: action(
      NextActionKind.Wait,
      where ? `No storage blocker: ${where}.` : 'No storage blocker found.',
    ),
  };
}
