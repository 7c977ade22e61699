/**
 * The facts every fence rule reads, computed once per step so that rules stay one-liners and agree with
 * each other (the same "now", the same proof, the same resolved strategy).
 */

import type { BlocklistEvidence } from '../blocklist.js';
import type { Rule } from '../decision.js';
import { ValidationError } from '../errors.js';
import { describeFallible, describeNode, describePower } from '../evidence.js';
import { assertHistory, proofFrom, type RunHistory, storageProofFrom } from '../history.js';
import { type InstanceRef, isOff, type PowerEvidence, PowerState } from '../instance.js';
import { type IsolationPlan, isolationPlan } from '../isolation.js';
import { type OutOfServiceState, outOfServiceState } from '../node-marks.js';
import type { Observation, ObservedInstance, ObservedNode } from '../observation.js';
import { Phase } from '../phases.js';
import { assertLimits, type FenceRequest } from '../request.js';
import { type ResolvedStrategy, resolveStrategy } from '../strategy.js';
import { instant } from '../time.js';

/** An instance whose providerID was resolved. */
export type ResolvedInstance = Extract<ObservedInstance, { resolved: true }>;

/** What a fence rule sees. */
export interface FenceContext {
  readonly observation: Observation;
  readonly request: FenceRequest;
  readonly history: RunHistory;
  /** The observation time, in ms. */
  readonly now: number;
  /** When the run committed to fencing, in ms; `null` before. */
  readonly decidedAt: number | null;
  /** Proof of off: held from an earlier step, or supplied by this observation. */
  readonly proof: PowerEvidence | null;
  /** Which proofs the release needs: fixed at the commitment, else what this observation calls for. */
  readonly plan: IsolationPlan;
  /** Proof that the node's storage clients are fenced: held, or supplied by this observation. */
  readonly storageProof: BlocklistEvidence | null;
  /** The node's blocklist as listed now, when the storage cluster answered. */
  readonly blocklist: BlocklistEvidence | null;
  readonly strategy: ResolvedStrategy | null;
  readonly node: ObservedNode | null;
  /** Who holds the node's out-of-service taints; `null` when there is no node. */
  readonly taints: OutOfServiceState | null;
  readonly instance: ResolvedInstance | null;
  readonly ref: InstanceRef | null;
  /** The provider's current power answer, when it answered. */
  readonly power: PowerEvidence | null;
}

/** A rule of the fence table. */
export type FenceRule = Rule<FenceContext>;

/** Build the context, refusing input that contradicts itself (SAFETY.md rule 10). */
export function fenceContext(
  observation: Observation,
  request: FenceRequest,
  history: RunHistory,
): FenceContext {
  assertLimits(request.limits);
  assertHistory(history);
  const node = observation.node;
  if (node !== null && node.name !== request.node) {
    throw new ValidationError(`observation is of node ${node.name}, request is for node ${request.node}`);
  }
  if (history.target !== null && history.target.node !== request.node) {
    throw new ValidationError(
      `history is of node ${history.target.node}, request is for node ${request.node}`,
    );
  }
  if (node !== null && observation.instance === null) {
    throw new ValidationError(`observation of node ${node.name} says nothing about its instance`);
  }
  const instance = observation.instance?.resolved ? observation.instance : null;
  return {
    observation,
    request,
    history,
    now: instant(observation.observedAt, 'observedAt'),
    decidedAt:
      history.decidedToFenceAt === null ? null : instant(history.decidedToFenceAt, 'decidedToFenceAt'),
    proof: history.proofOfOff ?? proofFrom(history, observation),
    plan: history.isolation ?? isolationPlan(observation),
    storageProof: history.storageProof ?? storageProofFrom(history, observation),
    blocklist: observation.storage?.blocklist.ok ? observation.storage.blocklist.value : null,
    strategy: resolveStrategy(request.strategy, observation.cluster.serverVersion),
    node,
    taints: node === null ? null : outOfServiceState(node.outOfServiceTaints, node.fenceRecord),
    instance,
    ref: instance?.ref ?? null,
    power: instance?.power.ok ? instance.power.value : null,
  };
}

/** Whether the run has committed to fencing. */
export const committed = (ctx: FenceContext): boolean => ctx.decidedAt !== null;

/** Whether the provider says, in this observation, that the instance is off. */
export const currentlyOff = (ctx: FenceContext): boolean => ctx.power !== null && isOff(ctx.power.state);

/** Whether every proof the plan needs is held: the node's volumes may be released. */
export const proven = (ctx: FenceContext): boolean =>
  (!ctx.plan.machine || ctx.proof !== null) && (!ctx.plan.storage || ctx.storageProof !== null);

/**
 * Whether the node still holds a network image (a VolumeAttachment of one). Once the storage proof is
 * held and none is left, every image has been released under that proof and the storage cluster has
 * nothing more to show: the app stops asking it (it asks only for the node's images).
 */
export const holdsImages = (ctx: FenceContext): boolean =>
  ctx.observation.workload.volumeAttachments.some((va) => va.image);

/** The phase a waiting step reports: where the run stands. */
export function stagePhase(ctx: FenceContext): Phase {
  if (!committed(ctx)) return Phase.Assess;
  if (ctx.plan.storage && ctx.storageProof === null) return Phase.StorageFence;
  if (ctx.plan.machine && ctx.proof === null) return Phase.ConfirmOff;
  return ctx.taints?.releasing ? Phase.Drain : Phase.Taint;
}

/** A proof that the instance the run committed to is no longer known to its provider. */
const goneMark = (proof: PowerEvidence): string =>
  proof.state === PowerState.NotFound
    ? ' (InstanceGone: the provider no longer knows the committed instance)'
    : '';

/** The facts every decision's evidence starts with. */
export function baseEvidence(ctx: FenceContext): string[] {
  const lines: string[] = [];
  if (ctx.node !== null) lines.push(describeNode(ctx.node));
  if (ctx.instance !== null)
    lines.push(
      describeFallible(`instance ${ctx.instance.ref.instanceId}`, ctx.instance.power, describePower),
    );
  if (ctx.history.decidedToFenceAt !== null)
    lines.push(`decided to fence at ${ctx.history.decidedToFenceAt}`);
  if (ctx.proof !== null) lines.push(`proof of off${goneMark(ctx.proof)}: ${describePower(ctx.proof)}`);
  if (ctx.storageProof !== null)
    lines.push(
      `storage fenced: ${ctx.storageProof.found.map((e) => e.entry).join(', ')} listed at ${ctx.storageProof.observedAt}`,
    );
  return lines;
}
