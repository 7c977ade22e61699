/**
 * Bounded blast radius (SAFETY.md rule 4): many unhealthy nodes at once means a broken network, not broken
 * nodes, and powering them off would turn a partition into an outage.
 */
import { Compliant, halt, NotApplicable, wait } from '../decision.js';
import { ValidationError } from '../errors.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { PollSeconds } from '../timing.js';
import { committed, currentlyOff, type FenceContext, type FenceRule } from './context.js';
import { expired } from './deadline.js';

/** The unhealthy nodes, this one included (it is not Ready, or an earlier rule would have refused). */
export function unhealthyCount(ctx: FenceContext): number {
  const { totalNodes, unhealthyNodes } = ctx.observation.cluster;
  const names = new Set(unhealthyNodes);
  names.add(ctx.request.node);
  if (!Number.isInteger(totalNodes) || totalNodes < names.size) {
    throw new ValidationError(`cluster has ${totalNodes} nodes but ${names.size} unhealthy ones`);
  }
  return names.size;
}

/**
 * Whether the unhealthy nodes exceed either limit. Like the node-lifecycle controller's zone
 * disruption rule, the fraction only speaks once more than one node is unhealthy: a single dead node
 * is not a sign of a broken network, even in a two-node cluster.
 */
export function tooManyUnhealthy(ctx: FenceContext): boolean {
  const count = unhealthyCount(ctx);
  const { maxUnhealthyNodes, maxUnhealthyFraction } = ctx.request.limits;
  const fractionExceeded = count > 1 && count / ctx.observation.cluster.totalNodes > maxUnhealthyFraction;
  return count > maxUnhealthyNodes || fractionExceeded;
}

/** Other nodes' fencings in flight (this node never counts against itself). */
export const othersInFlight = (ctx: FenceContext): string[] => [
  ...new Set(ctx.observation.cluster.fencingsInFlight.filter((name) => name !== ctx.request.node)),
];

export const unhealthyWithinLimits: FenceRule = {
  id: 'unhealthy-within-limits',
  contract: 'SAFETY.md rule 4: halt when too many nodes are unhealthy at once',
  check: (ctx) => {
    // Gates every step that could power something off: the commitment and any repeated power-off.
    // Once the instance is off (or proven off), releasing its volumes harms no one else.
    const mayPowerOff = !committed(ctx) || (ctx.proof === null && !currentlyOff(ctx));
    if (!mayPowerOff || ctx.node === null) return NotApplicable;
    if (!tooManyUnhealthy(ctx)) return Compliant;
    const { maxUnhealthyNodes, maxUnhealthyFraction } = ctx.request.limits;
    const evidence = [
      `${unhealthyCount(ctx)} of ${ctx.observation.cluster.totalNodes} nodes unhealthy ` +
        `(limits: ${maxUnhealthyNodes} nodes, fraction ${maxUnhealthyFraction})`,
    ];
    if (!committed(ctx)) return halt(Phase.Refused, Reason.TooManyUnhealthy, evidence);
    // Already committed: the power-off already asked for may still land, so keep watching for proof,
    // but ask for no new power-off while the cluster looks partitioned.
    const message =
      'Too many nodes are unhealthy to request another power-off; waiting for the one already requested.';
    return (
      expired(ctx, [message, ...evidence]) ??
      wait(Phase.ConfirmOff, PollSeconds.ConfirmOff, message, evidence, Reason.TooManyUnhealthy)
    );
  },
};

export const inFlightWithinLimits: FenceRule = {
  id: 'in-flight-within-limits',
  contract: 'SAFETY.md rule 4: halt when too many fencings are in flight',
  check: (ctx) => {
    // Only the commitment is gated: once committed, this run is itself one of the fencings in flight.
    if (committed(ctx)) return NotApplicable;
    const others = othersInFlight(ctx);
    const limit = ctx.observation.cluster.maxInFlight;
    return others.length < limit
      ? Compliant
      : halt(Phase.Refused, Reason.TooManyInFlight, [
          `${others.length} fencings in flight (${others.join(', ')}), the cluster's limit is ${limit}`,
        ]);
  },
};
