/**
 * The conditions of a KubeFencerRemediation, from what the reconcile found: how the remediation's run
 * stands and the fence the node carries. Pure. `Processing` and `Succeeded` are NHC's (it reads
 * `Succeeded`: False makes it escalate to its next remediator at once); the others say what the fence
 * rests on. `Succeeded` is True only when the run ended fenced or the fencer's own taint is on the node
 * (SAFETY.md rule 1: either comes only after the proof), never for a dry run (SAFETY.md rule 8).
 */
import type { FenceRecord } from '../../domain/node-marks.js';
import {
  type Condition,
  type ConditionStatus,
  RemediationCondition,
  type RemediationCondition as RemediationConditionType,
} from '../../ports/remediations.js';
import type { RunEnd } from '../../ports/run-records.js';

/** How the remediation's fencing run stands. */
export type RunProgress =
  | { readonly kind: 'invalid-spec'; readonly message: string }
  | { readonly kind: 'node-not-found'; readonly node: string }
  /** No run of this remediation, and none to start: NHC's timeout annotation is set. */
  | { readonly kind: 'timed-out-by-nhc'; readonly at: string }
  /** Another run (another trigger's, another request's) holds the node's fencing claim. */
  | { readonly kind: 'other-run'; readonly runId: string }
  | { readonly kind: 'going'; readonly runName: string }
  /** The workflow did not take the run; the next reconcile tries again. */
  | { readonly kind: 'start-failed'; readonly message: string }
  | { readonly kind: 'exhausted'; readonly message: string }
  | { readonly kind: 'ended'; readonly runName: string; readonly end: RunEnd }
  /** No run of this remediation: the node carries the fencer's fence already (another run made it). */
  | { readonly kind: 'already-fenced' };

/** The fencer's marks on the node, as read. */
export interface NodeFence {
  /** The fencer's own out-of-service taint is on the node, with its record. */
  readonly tainted: boolean;
  readonly record: FenceRecord | null;
  /** Out-of-service taints that are not the fencer's, described. */
  readonly foreignTaints: readonly string[];
  /** VolumeAttachments still naming the node; null when not read. */
  readonly volumeAttachments: number | null;
  readonly taintDescription: string | null;
}

/** What the un-fence of a deleted remediation came to. */
export type UnfenceProgress =
  | { readonly kind: 'unfenced'; readonly message: string }
  | { readonly kind: 'refused'; readonly reason: string; readonly message: string }
  | { readonly kind: 'waiting-for-run'; readonly runName: string };

export interface ConditionFacts {
  /** null: keep Processing and Succeeded as they were (a remediation being deleted starts nothing). */
  readonly progress: RunProgress | null;
  readonly fence: NodeFence;
  /** undefined: not being deleted (no Unfenced condition); null: not attempted now (keep the last). */
  readonly unfence?: UnfenceProgress | null;
}

type Part = { readonly status: ConditionStatus; readonly reason: string; readonly message: string };

const MAX_MESSAGE = 1024;
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** A condition reason as metav1 allows it: the text if it is one, else its words in PascalCase. */
export function asReason(text: string | null | undefined, fallback = 'Unknown'): string {
  if (text && REASON.test(text) && text.length <= 1024) return text;
  const words = (text ?? '').split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const joined = words.map((w) => `${w[0]?.toUpperCase()}${w.slice(1)}`).join('');
  return REASON.test(joined) ? joined.slice(0, 1024) : fallback;
}

const part = (status: ConditionStatus, reason: string, message: string): Part => ({
  status,
  reason: asReason(reason),
  message: message.length <= MAX_MESSAGE ? message : `${message.slice(0, MAX_MESSAGE - 1)}…`,
});

/** The fence as one sentence: what proved the machine off, and the taint. */
export function describeFence(fence: NodeFence): string {
  const r = fence.record;
  if (!r) return 'the fencer’s taint is on the node';
  const proof = r.instanceId === '' ? 'fenced at the storage layer' : `instance ${r.instanceId} ${r.proof}`;
  return `${proof}; ${fence.taintDescription ?? 'taint'} added at ${r.fencedAt} by run ${r.runId}`;
}

function endedParts(progress: Extract<RunProgress, { kind: 'ended' }>, fence: NodeFence): [Part, Part] {
  const { end, runName } = progress;
  const done = part('False', asReason(end.reason ?? end.outcome), `run ${runName} ended: ${end.message}`);
  if (end.outcome === 'fenced') {
    // The run's end is the record of its proof; a taint removed since (an un-fence) does not undo it.
    const what = fence.tainted
      ? describeFence(fence)
      : `run ${runName} fenced the node; its taint is gone since`;
    return [part('False', 'Fenced', done.message), part('True', 'Fenced', what)];
  }
  if (end.outcome === 'dry-run') return [done, part('False', 'DryRun', `dry run: ${end.message}`)];
  return [done, part('False', asReason(end.reason ?? end.outcome, 'Failed'), end.message)];
}

/** Processing and Succeeded, as NHC reads them. */
export function runParts(progress: RunProgress, fence: NodeFence): [Part, Part] {
  const both = (status: ConditionStatus, reason: string, message: string): [Part, Part] => [
    part(status === 'Unknown' ? 'True' : 'False', reason, message),
    part(status, reason, message),
  ];
  switch (progress.kind) {
    case 'invalid-spec':
      return both('False', 'InvalidSpec', progress.message);
    case 'node-not-found':
      return both('False', 'NodeNotFound', `node ${progress.node} does not exist`);
    case 'timed-out-by-nhc':
      return both(
        'False',
        'TimedOutByNhc',
        `NHC timed this remediation out at ${progress.at}: no run started`,
      );
    case 'exhausted':
      return both('False', 'RunsExhausted', progress.message);
    case 'ended':
      return endedParts(progress, fence);
    case 'going':
      return both('Unknown', 'FencingInProgress', `run ${progress.runName} is fencing the node`);
    case 'other-run':
      return both('Unknown', 'AnotherRunFencing', `run ${progress.runId} holds the node; waiting for it`);
    case 'start-failed':
      return both('Unknown', 'RunStartFailed', `the run could not be started; retrying: ${progress.message}`);
    case 'already-fenced':
      return fence.tainted
        ? [part('False', 'Fenced', describeFence(fence)), part('True', 'Fenced', describeFence(fence))]
        : both('Unknown', 'Pending', 'no run started yet');
  }
}

/** PoweredOffProven, OutOfServiceTainted and VolumesReleased, from the node's marks. */
export function fenceParts(fence: NodeFence): [Part, Part, Part] {
  if (!fence.tainted) {
    const notFenced = part('Unknown', 'NotFenced', 'the node carries no fence of the fencer’s');
    const others = fence.foreignTaints.join(', ');
    const taint = others
      ? part('False', 'NotTainted', `the node carries ${others}, which the fencer did not add`)
      : part('False', 'NotTainted', 'no out-of-service taint of the fencer’s is on the node');
    return [notFenced, taint, notFenced];
  }
  const r = fence.record;
  const proven =
    r === null
      ? part('Unknown', 'NoFenceRecord', 'the fence record cannot be read')
      : r.instanceId === ''
        ? part('False', 'NoMachine', `fenced at the storage layer only (${(r.blocklist ?? []).join(', ')})`)
        : part(
            'True',
            'ProvenOff',
            `instance ${r.instanceId} was ${r.proof} before the taint (run ${r.runId})`,
          );
  const tainted = part('True', 'FencerTaint', fence.taintDescription ?? 'the fencer’s taint');
  const count = fence.volumeAttachments;
  const released =
    count === null
      ? part('Unknown', 'NotRead', 'the VolumeAttachments were not read')
      : count === 0
        ? part('True', 'NoVolumeAttachments', 'no VolumeAttachment names the node')
        : part('False', 'VolumeAttachmentsRemain', `${count} VolumeAttachment(s) still name the node`);
  return [proven, tainted, released];
}

function unfencePart(unfence: UnfenceProgress): Part {
  switch (unfence.kind) {
    case 'unfenced':
      return part('True', 'Unfenced', unfence.message);
    case 'refused':
      return part('False', asReason(unfence.reason, 'Refused'), unfence.message);
    case 'waiting-for-run':
      return part('False', 'RunInProgress', `run ${unfence.runName} is still going; un-fencing after it`);
  }
}

/** A condition with its transition time kept while its status stays the same (as metav1 does). */
function withTransition(
  type: RemediationConditionType,
  next: Part,
  previous: readonly Condition[],
  now: string,
  generation: number,
): Condition {
  const before = previous.find((c) => c.type === type);
  const lastTransitionTime = before && before.status === next.status ? before.lastTransitionTime : now;
  return { type, ...next, lastTransitionTime, observedGeneration: generation };
}

/** The conditions after this reconcile, and the reason to show as the last one. */
export function remediationConditions(
  facts: ConditionFacts,
  previous: readonly Condition[],
  now: string,
  generation: number,
): { readonly conditions: readonly Condition[]; readonly lastReason: string | undefined } {
  const kept = (type: string): Part | undefined => {
    const found = previous.find((c) => c.type === type);
    return found && { status: found.status, reason: found.reason, message: found.message };
  };
  const [processing, succeeded] = facts.progress
    ? runParts(facts.progress, facts.fence)
    : [kept(RemediationCondition.Processing), kept(RemediationCondition.Succeeded)];
  const [proven, tainted, released] = fenceParts(facts.fence);
  const unfenced =
    facts.unfence === undefined
      ? undefined
      : facts.unfence === null
        ? kept(RemediationCondition.Unfenced)
        : unfencePart(facts.unfence);
  const parts: [RemediationConditionType, Part | undefined][] = [
    [RemediationCondition.Processing, processing],
    [RemediationCondition.Succeeded, succeeded],
    [RemediationCondition.PoweredOffProven, proven],
    [RemediationCondition.OutOfServiceTainted, tainted],
    [RemediationCondition.VolumesReleased, released],
    [RemediationCondition.Unfenced, unfenced],
  ];
  const conditions = parts.flatMap(([type, p]) =>
    p ? [withTransition(type, p, previous, now, generation)] : [],
  );
  const last =
    facts.unfence && unfenced
      ? unfenced
      : succeeded && succeeded.status !== 'Unknown'
        ? succeeded
        : processing;
  return { conditions, lastReason: last?.reason };
}
