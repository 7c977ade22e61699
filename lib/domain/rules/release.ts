/**
 * Proof before release (SAFETY.md rule 1), second half: with proof held AND the instance still off in this
 * step's observation, taint the node, then (per strategy) clear what Kubernetes will not clear by itself,
 * and end when the node holds no volumes. VolumeAttachments are deleted on the legacy path only, on
 * servers known to predate 1.26 (rule 5). The fencer's taint is exact (rule 6): it is added with its
 * `timeAdded` recorded, and a record whose taint is gone is cleared, never used to adopt another's taint.
 */
import { ActionKind, type ObjectRef } from '../action.js';
import { act, halt, NotApplicable } from '../decision.js';
import { DiskAttachmentState } from '../instance.js';
import { describeTaint, outOfServiceTaintAt } from '../node-marks.js';
import type { ObservedPod } from '../observation.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { Strategy } from '../request.js';
import { mayDeleteVolumeAttachments } from '../strategy.js';
import { PollSeconds } from '../timing.js';
import { committed, currentlyOff, type FenceContext, type FenceRule, proven, stagePhase } from './context.js';
import { waitOrExpire } from './deadline.js';

const holdsVolumes = (pod: ObservedPod): boolean => pod.claimNames.length > 0;

/** Pods that keep a volume attached while they exist: they hold a PVC, or are stuck terminating. */
const blockingPods = (ctx: FenceContext): readonly ObservedPod[] =>
  ctx.observation.workload.pods.filter((pod) => holdsVolumes(pod) || pod.terminating);

/** Pods the out-of-service taint will never evict, that keep volumes on the node. */
const toleratingHolders = (ctx: FenceContext): readonly ObservedPod[] =>
  ctx.observation.workload.pods.filter(
    (pod) => pod.toleratesOutOfService && holdsVolumes(pod) && !pod.terminating,
  );

const podRef = (pod: ObservedPod): ObjectRef => ({ namespace: pod.namespace, name: pod.name, uid: pod.uid });

/** The blocklist entries this run put in place: the proof's, minus what was listed before it committed. */
const ownEntries = (ctx: FenceContext): string[] => {
  const before = new Set(ctx.history.storageBefore ?? []);
  return (ctx.storageProof?.found ?? []).map((e) => e.entry).filter((entry) => !before.has(entry));
};
const podName = (pod: ObservedPod): string => `${pod.namespace}/${pod.name}`;

/** What the release rests on, in words: the proofs the run's plan needed (a bare-metal node has no machine). */
const isolatedBy = (ctx: FenceContext): string =>
  [
    ctx.plan.machine ? 'the instance is proven off' : null,
    ctx.plan.storage ? "the node's storage clients are proven blocklisted" : null,
  ]
    .filter((part): part is string => part !== null)
    .join(' and ');

/** The same, in the few words of the final message. */
const isolatedShort = (ctx: FenceContext): string =>
  [ctx.plan.machine ? 'instance off' : null, ctx.plan.storage ? 'storage clients blocklisted' : null]
    .filter((part): part is string => part !== null)
    .join(', ');

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Applies once every proof the node's volumes need is held and the node is there to act on. */
const releasing = (ctx: FenceContext): boolean =>
  committed(ctx) && proven(ctx) && ctx.node !== null && (!ctx.plan.machine || ctx.ref !== null);

/** A NoExecute out-of-service taint is on the node (ours or another's): Kubernetes is releasing. */
const tainted = (ctx: FenceContext): boolean => ctx.taints?.releasing === true;

export const stillOff: FenceRule = {
  id: 'still-off',
  contract: 'SAFETY.md rules 1 and 2: re-check right before every release that the instance is off',
  check: (ctx) => {
    if (!releasing(ctx) || !ctx.plan.machine) return NotApplicable;
    if (currentlyOff(ctx)) return NotApplicable;
    return waitOrExpire(
      ctx,
      stagePhase(ctx),
      PollSeconds.ConfirmOff,
      `Proof of off is held, but the instance is ${ctx.power?.state} now; releasing nothing until it shows off again.`,
    );
  },
};

export const addTaint: FenceRule = {
  id: 'add-taint',
  contract: 'SAFETY.md rules 1 and 6: taint only with proof; record the exact taint in the same write',
  check: (ctx) => {
    const { node, proof, ref, taints } = ctx;
    if (!releasing(ctx) || node === null || taints === null) return NotApplicable;
    // Our own taint from an earlier run is re-recorded for this one; a NoExecute out-of-service taint
    // someone else added already releases the volumes, is left alone, and is never claimed.
    const rerecord = taints.ours !== null && node.fenceRecord?.runId !== ctx.history.runId;
    if (taints.releasing && !rerecord) return NotApplicable;
    const taint = rerecord && taints.ours ? taints.ours : outOfServiceTaintAt(ctx.observation.observedAt);
    const record = {
      runId: ctx.history.runId,
      // Un-fence needs a power cycle after this, so it is this run's time even for a re-recorded taint.
      fencedAt: ctx.observation.observedAt,
      instanceId: ref?.instanceId ?? '',
      proof: [proof ? (proof.providerState ?? proof.state) : null, ctx.storageProof ? 'blocklisted' : null]
        .filter(Boolean)
        .join(' and '),
      taint,
      // Exactly what the fencer added (entries listed before it committed are someone else's).
      ...(ctx.storageProof ? { blocklist: ownEntries(ctx) } : {}),
      bootId: node.bootId,
    };
    return act(
      Phase.Taint,
      {
        kind: ActionKind.Taint,
        node: node.name,
        expectedResourceVersion: node.resourceVersion,
        taint,
        record,
      },
      rerecord
        ? `${capitalized(isolatedBy(ctx))}; node ${node.name} already carries the fencer's taint, recording this run as its owner.`
        : `${capitalized(isolatedBy(ctx))}; tainting node ${node.name} out-of-service.`,
    );
  },
};

export const clearStaleRecord: FenceRule = {
  id: 'clear-stale-record',
  contract: 'SAFETY.md rule 6: a fence record whose taint is gone proves nothing and adopts nothing',
  check: (ctx) => {
    const { node, taints } = ctx;
    if (ctx.request.dryRun || node === null || taints === null || !taints.staleRecord) return NotApplicable;
    // Only after the proof: before it, nothing of the node is touched at all.
    if (!releasing(ctx)) return NotApplicable;
    const record = node.fenceRecord;
    return act(
      stagePhase(ctx),
      {
        kind: ActionKind.ClearFenceRecord,
        node: node.name,
        expectedResourceVersion: node.resourceVersion,
        fenceRunId: record?.runId ?? '',
      },
      `Clearing a stale fence record of run ${record?.runId}: its taint is no longer on node ${node.name}.`,
      [`fence record names ${record ? describeTaint(record.taint) : 'no taint'}, which is gone`],
      0,
      Reason.StaleFenceRecord,
    );
  },
};

export const legacyDeletePods: FenceRule = {
  id: 'legacy-delete-pods',
  contract: 'SAFETY.md rule 5: on the legacy path, force-delete the pods that hold the volumes',
  check: (ctx) => {
    if (!releasing(ctx) || !tainted(ctx) || ctx.strategy !== Strategy.Legacy) return NotApplicable;
    const pods = blockingPods(ctx);
    if (pods.length === 0) return NotApplicable;
    return act(
      Phase.Drain,
      { kind: ActionKind.DeletePods, node: ctx.request.node, pods: pods.map(podRef) },
      `Force-deleting ${pods.length} pods on the fenced node.`,
      [],
      PollSeconds.Drain,
    );
  },
};

export const toleratingPods: FenceRule = {
  id: 'tolerating-pods',
  contract:
    'SAFETY.md rule 9: a pod the taint can never evict is named at once, not waited on until the deadline',
  check: (ctx) => {
    if (!releasing(ctx) || !tainted(ctx) || ctx.strategy === Strategy.Legacy) return NotApplicable;
    const pods = toleratingHolders(ctx);
    if (pods.length === 0) return NotApplicable;
    const evidence = pods.map(
      (pod) =>
        `pod ${podName(pod)} tolerates the out-of-service taint and holds ${pod.claimNames.join(', ')}`,
    );
    if (ctx.request.forceDeleteTolerating) {
      return act(
        Phase.Drain,
        { kind: ActionKind.ForceDeletePods, node: ctx.request.node, pods: pods.map(podRef) },
        `Force-deleting ${pods.length} pods that tolerate the taint (as asked); ${isolatedBy(ctx)}.`,
        evidence,
        PollSeconds.Drain,
      );
    }
    const next =
      `${capitalized(isolatedBy(ctx))} and the node tainted; delete ${pods.map(podName).join(', ')} with grace period 0 ` +
      '(or rerun with the opt-in to force-delete tolerating pods) to release their volumes.';
    return halt(Phase.Failed, Reason.PodToleratesOutOfService, [...evidence, next], next);
  },
};

export const accelerateForceDelete: FenceRule = {
  id: 'accelerate-force-delete',
  contract:
    'SAFETY.md rule 1: once isolated and tainted, request.accelerate does what PodGC will do, without its 20 s loop',
  check: (ctx) => {
    if (!releasing(ctx) || !tainted(ctx) || !ctx.request.accelerate) return NotApplicable;
    const pods = ctx.observation.workload.pods.filter((pod) => pod.terminating);
    if (pods.length === 0) return NotApplicable;
    return act(
      Phase.Drain,
      { kind: ActionKind.ForceDeletePods, node: ctx.request.node, pods: pods.map(podRef) },
      `Force-deleting ${pods.length} terminating pods on the fenced node.`,
      [],
      PollSeconds.Drain,
    );
  },
};

export const legacyDeleteVolumeAttachments: FenceRule = {
  id: 'legacy-delete-volume-attachments',
  contract: 'SAFETY.md rule 5: delete VolumeAttachments only on the legacy path of a server < 1.26',
  check: (ctx) => {
    if (!releasing(ctx) || !tainted(ctx)) return NotApplicable;
    if (!mayDeleteVolumeAttachments(ctx.strategy, ctx.observation.cluster.serverVersion))
      return NotApplicable;
    // With a pod still holding the volume, the attach-detach controller would re-create the attachment.
    if (blockingPods(ctx).length > 0) return NotApplicable;
    const attachments = ctx.observation.workload.volumeAttachments.filter((va) => !va.deleting);
    if (attachments.length === 0) return NotApplicable;
    const refs = attachments.map((va) => ({ namespace: null, name: va.name, uid: va.uid }));
    return act(
      Phase.Drain,
      { kind: ActionKind.DeleteVolumeAttachments, node: ctx.request.node, volumeAttachments: refs },
      `Deleting ${refs.length} VolumeAttachments of the fenced node.`,
      [],
      PollSeconds.Drain,
    );
  },
};

/**
 * A node released by someone else's taint carries no fence record of this run, so nothing records the
 * blocklist entries it added and un-fence cannot lift them: say so, and how to lift them by hand.
 */
function unrecordedEntries(ctx: FenceContext): string {
  if (!ctx.storageProof || ctx.taints?.ours) return '';
  const entries = ownEntries(ctx);
  if (entries.length === 0) return '';
  const lift = entries.map((e) => `ceph osd blocklist ${e.includes(':') ? '' : 'range '}rm ${e}`);
  return ` The taint is not the fencer's, so nothing records the blocklist entries it added (${entries.join(', ')}) and \`fencer unfence\` will not lift them: once the node has been power-cycled, lift them by hand (${lift.join('; ')}), or they lapse on their own.`;
}

export const drained: FenceRule = {
  id: 'drained',
  contract: 'SAFETY.md rule 1: fenced once no pod, VolumeAttachment or disk ties volumes to the node',
  check: (ctx) => {
    if (!releasing(ctx) || !tainted(ctx)) return NotApplicable;
    // Disks are the machine's: a node fenced at the storage layer only has none to wait for.
    const disks = ctx.plan.machine ? (ctx.instance?.disks ?? null) : { ok: true as const, value: [] };
    const pods = blockingPods(ctx);
    const attachments = ctx.observation.workload.volumeAttachments;
    const attachedDisks = disks?.ok
      ? disks.value.filter((d) => !d.root && d.state !== DiskAttachmentState.Detached)
      : null;
    if (pods.length === 0 && attachments.length === 0 && attachedDisks?.length === 0) {
      // Say what stays: pods that hold no volume (they tolerate the taint) are not the fence's business.
      const remaining = ctx.observation.workload.pods.map((pod) => `pod ${podName(pod)} (holds no volume)`);
      const left = remaining.length > 0 ? ` Still bound to it: ${remaining.join(', ')}.` : '';
      return act(
        Phase.Fenced,
        null,
        `Node ${ctx.request.node} is fenced: ${isolatedShort(ctx)}, no pod holds a volume, no VolumeAttachment or disk left.${left}${unrecordedEntries(ctx)}`,
        remaining,
      );
    }
    const left = [
      ...pods.map((p) => `pod ${podName(p)}${p.terminating ? ' (terminating)' : ''}`),
      ...attachments.map(
        (va) =>
          `VolumeAttachment ${va.name} (pv ${va.persistentVolume}, attached=${va.attached}${va.detachError ? `, detachError "${va.detachError}"` : ''})`,
      ),
      ...(attachedDisks ?? []).map((d) => `disk ${d.volumeId} ${d.state}`),
    ];
    if (disks === null) left.push('disks not read in this step');
    else if (!disks.ok) left.push(`disks unknown: ${disks.error.name}: ${disks.error.message}`);
    const reason =
      disks?.ok === false
        ? disks.error.throttled
          ? Reason.ProviderThrottled
          : Reason.ProviderApiError
        : null;
    return waitOrExpire(
      ctx,
      Phase.Drain,
      PollSeconds.Drain,
      `Waiting for node ${ctx.request.node} to clear: ${left.join('; ')}.`,
      left,
      reason,
    );
  },
};
