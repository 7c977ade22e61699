/** What every blocker rule shares: its shape, its answer, and the facts it looks at twice. */
import { describeInstanceFact } from '../sweep/cross-check.js';
import type { NextAction } from '../sweep/finding.js';
import type { AttachmentFact, Blocker, DiagnosisFacts, PodFact, VolumeFact } from './model.js';

/** A rule's answer: the blocker and what to do, or nothing to say. */
export interface BlockerVerdict {
  readonly blocker: Blocker | null;
  readonly nextAction: NextAction;
}

export interface BlockerRule {
  readonly id: string;
  check(facts: DiagnosisFacts, volume: VolumeFact): BlockerVerdict | null;
}

export const action = (kind: NextAction['kind'], description: string, command?: string): NextAction => ({
  kind,
  description,
  ...(command ? { command } : {}),
  automatic: false,
});

export const podName = (p: PodFact): string => `${p.namespace}/${p.name}`;
export const instanceState = (a: AttachmentFact): string =>
  a.instance ? describeInstanceFact(a.instance) : `instance unknown (${a.instanceProblem ?? 'not observed'})`;
export const targetNode = (facts: DiagnosisFacts): string | undefined => facts.pod?.nodeName;

/** Attachments that hold the volume on a node other than the one the pod needs it on. */
export const holders = (facts: DiagnosisFacts, volume: VolumeFact): AttachmentFact[] =>
  volume.attachments.filter((a) => a.attached && a.nodeName !== targetNode(facts));
