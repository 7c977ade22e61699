/**
 * Proof before release (safety.md rule 1), second half: with proof held AND the instance still off in this
 * step's observation, taint the node, then (per strategy) clear what Kubernetes will not clear by itself,
 * and end when the node holds no volumes. VolumeAttachments are deleted on the legacy path only, on
 * servers known to predate 1.26 (rule 5).
 */
import { ActionKind, type ObjectRef } from '../action.js';
import { act, NotApplicable } from '../decision.js';
import { DiskAttachmentState } from '../instance.js';
import { OUT_OF_SERVICE_TAINT } from '../node-marks.js';
import type { ObservedPod } from '../observation.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { Strategy } from '../request.js';
import { mayDeleteVolumeAttachments } from '../strategy.js';
import { PollSeconds } from '../timing.js';
import { currentlyOff, type FenceContext, type FenceRule, stagePhase } from './context.js';
import { waitOrExpire } from './deadline.js';

/** Pods that keep a volume attached while they exist: they hold a PVC, or are stuck terminating. */
const blockingPods = (ctx: FenceContext): readonly ObservedPod[] =>
  ctx.observation.workload.pods.filter((pod) => pod.usesPersistentVolumes || pod.terminating);

const podRef = (pod: ObservedPod): ObjectRef => ({ namespace: pod.namespace, name: pod.name, uid: pod.uid });

/** Applies once proof of off is held and the node is there to act on. */
const releasing = (ctx: FenceContext): boolean => ctx.proof !== null && ctx.node !== null && ctx.ref !== null;

const tainted = (ctx: FenceContext): boolean => ctx.node?.outOfServiceTaint.present === true;

export const stillOff: FenceRule = {
  id: 'still-off',
  contract: 'safety.md 1 and 2: re-check right before every release that the instance is off',
  check: (ctx) => {
    if (!releasing(ctx)) return NotApplicable;
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
  contract: 'safety.md 1 and 6: taint only with proof; record ownership in the same write',
  check: (ctx) => {
    const { node, proof, ref } = ctx;
    if (!releasing(ctx) || node === null || proof === null || ref === null) return NotApplicable;
    const taint = node.outOfServiceTaint;
    // A taint someone else added is left alone and never claimed; ours is re-recorded for this run.
    const needed = !taint.present || (taint.ownedByFencer && node.fenceRecord?.runId !== ctx.history.runId);
    if (!needed) return NotApplicable;
    const record = {
      runId: ctx.history.runId,
      fencedAt: ctx.observation.observedAt,
      instanceId: ref.instanceId,
      proof: proof.providerState ?? proof.state,
    };
    return act(
      Phase.Taint,
      {
        kind: ActionKind.Taint,
        node: node.name,
        expectedResourceVersion: node.resourceVersion,
        taint: OUT_OF_SERVICE_TAINT,
        record,
      },
      `The instance is proven off; tainting node ${node.name} out-of-service.`,
    );
  },
};

export const legacyDeletePods: FenceRule = {
  id: 'legacy-delete-pods',
  contract: 'mission.md: on the legacy path, force-delete the pods that hold the volumes',
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

export const accelerateForceDelete: FenceRule = {
  id: 'accelerate-force-delete',
  contract: 'request.accelerate: do what PodGC will do, without waiting for its 20 s loop',
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
  contract: 'safety.md 5: delete VolumeAttachments only on the legacy path of a server < 1.26',
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

export const drained: FenceRule = {
  id: 'drained',
  contract: 'workflow: fenced once no pod, VolumeAttachment or disk ties volumes to the node',
  check: (ctx) => {
    if (!releasing(ctx) || !tainted(ctx) || ctx.instance === null) return NotApplicable;
    const disks = ctx.instance.disks;
    const pods = blockingPods(ctx);
    const attachments = ctx.observation.workload.volumeAttachments;
    const attachedDisks = disks.ok
      ? disks.value.filter((d) => !d.root && d.state !== DiskAttachmentState.Detached)
      : null;
    if (pods.length === 0 && attachments.length === 0 && attachedDisks?.length === 0) {
      return act(
        Phase.Fenced,
        null,
        `Node ${ctx.request.node} is fenced: instance off, no pods, VolumeAttachments or disks left.`,
      );
    }
    const left = [
      ...pods.map((p) => `pod ${p.namespace}/${p.name}${p.terminating ? ' (terminating)' : ''}`),
      ...attachments.map(
        (va) =>
          `VolumeAttachment ${va.name} (pv ${va.persistentVolume}, attached=${va.attached}${va.detachError ? `, detachError "${va.detachError}"` : ''})`,
      ),
      ...(attachedDisks ?? []).map((d) => `disk ${d.volumeId} ${d.state}`),
    ];
    if (!disks.ok) left.push(`disks unknown: ${disks.error.name}: ${disks.error.message}`);
    return waitOrExpire(
      ctx,
      Phase.Drain,
      PollSeconds.Drain,
      `Waiting for node ${ctx.request.node} to clear: ${left.join('; ')}.`,
      left,
      disks.ok ? null : Reason.ProviderApiError,
    );
  },
};
