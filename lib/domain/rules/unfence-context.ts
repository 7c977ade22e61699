/**
 * The facts every un-fence rule reads, and the one way an un-fence run waits: bounded by the request's
 * patience, after which the same reason becomes a refusal.
 */
import { halt, type Outcome, type Rule, wait } from '../decision.js';
import { ValidationError } from '../errors.js';
import { describeNode, describePower } from '../evidence.js';
import type { RunHistory } from '../history.js';
import type { PowerEvidence } from '../instance.js';
import { type OutOfServiceState, outOfServiceState } from '../node-marks.js';
import type { Observation, ObservedNode } from '../observation.js';
import { Phase } from '../phases.js';
import { describeReason, type Reason } from '../reasons.js';
import type { UnfenceRequest } from '../request.js';
import { instant, isoAt } from '../time.js';
import { PollSeconds } from '../timing.js';
import type { ResolvedInstance } from './context.js';

/** What an un-fence rule sees. */
export interface UnfenceContext {
  readonly observation: Observation;
  readonly request: UnfenceRequest;
  readonly history: RunHistory;
  readonly now: number;
  readonly node: ObservedNode | null;
  /** Who holds the node's out-of-service taints; `null` when there is no node. */
  readonly taints: OutOfServiceState | null;
  readonly instance: ResolvedInstance | null;
  readonly power: PowerEvidence | null;
}

/** A rule of the un-fence table. */
export type UnfenceRule = Rule<UnfenceContext>;

/** Build the context, refusing input that contradicts itself. */
export function unfenceContext(
  observation: Observation,
  request: UnfenceRequest,
  history: RunHistory,
): UnfenceContext {
  if (!(Number.isFinite(request.waitSeconds) && request.waitSeconds >= 0)) {
    throw new ValidationError('waitSeconds must be a finite number >= 0');
  }
  const node = observation.node;
  if (node !== null && node.name !== request.node) {
    throw new ValidationError(`observation is of node ${node.name}, request is for node ${request.node}`);
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
    node,
    taints: node === null ? null : outOfServiceState(node.outOfServiceTaints, node.fenceRecord),
    instance,
    power: instance?.power.ok ? instance.power.value : null,
  };
}

/** The facts every un-fence decision's evidence starts with. */
export function unfenceEvidence(ctx: UnfenceContext): string[] {
  const lines: string[] = [];
  if (ctx.node !== null) lines.push(describeNode(ctx.node));
  if (ctx.node?.fenceRecord)
    lines.push(`fenced at ${ctx.node.fenceRecord.fencedAt} by run ${ctx.node.fenceRecord.runId}`);
  if (ctx.power !== null) lines.push(describePower(ctx.power));
  return lines;
}

/** Wait for the node to come back; past the request's patience, halt with the same reason. */
export function waitFor(ctx: UnfenceContext, reason: Reason, evidence: readonly string[]): Outcome {
  const deadline = instant(ctx.history.startedAt, 'startedAt') + ctx.request.waitSeconds * 1000;
  if (ctx.now > deadline) return halt(Phase.Refused, reason, [...evidence, `gave up at ${isoAt(deadline)}`]);
  return wait(Phase.UnfenceAssess, PollSeconds.Unfence, describeReason(reason), evidence, reason);
}
