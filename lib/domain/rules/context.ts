/**
 * The facts every fence rule reads, computed once per step so that rules stay one-liners and agree with
 * each other (the same "now", the same proof, the same resolved strategy).
 */
import type { Rule } from '../decision.js';
import { ValidationError } from '../errors.js';
import { describeFallible, describeNode, describePower } from '../evidence.js';
import { assertHistory, proofFrom, type RunHistory } from '../history.js';
import { type InstanceRef, isOff, type PowerEvidence } from '../instance.js';
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

/** Build the context, refusing input that contradicts itself (safety.md rule 10). */
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

/** The phase a waiting step reports: where the run stands. */
export function stagePhase(ctx: FenceContext): Phase {
  if (!committed(ctx)) return Phase.Assess;
  if (ctx.proof === null) return Phase.ConfirmOff;
  return ctx.taints?.releasing ? Phase.Drain : Phase.Taint;
}

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
  if (ctx.proof !== null) lines.push(`proof of off: ${describePower(ctx.proof)}`);
  return lines;
}
