/**
 * Right instance (SAFETY.md rule 3), from every independent signal: a machine may be fenced for exactly
 * one Node, the Node's own signals must not contradict the machine, and before the run commits at least
 * one of them must agree with it, so that a providerID alone (a stale or hand-made Node) is never enough
 * to power a machine off.
 */
import { Compliant, halt, NotApplicable } from '../decision.js';
import { compareIdentity } from '../identity.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { PollSeconds } from '../timing.js';
import { committed, type FenceContext, type FenceRule, stagePhase } from './context.js';
import { waitOrExpire } from './deadline.js';

const comparison = (ctx: FenceContext) => {
  const identity = ctx.instance?.identity;
  if (ctx.node === null || ctx.instance === null || !identity?.ok) return null;
  return compareIdentity(
    ctx.node,
    ctx.observation.workload.volumeAttachments,
    ctx.instance.ref.instanceId,
    identity.value,
  );
};

export const instanceUnique: FenceRule = {
  id: 'instance-unique',
  contract:
    'SAFETY.md rules 2 and 3: a machine is fenced for exactly one Node; another Node naming it may be it',
  check: (ctx) => {
    if (ctx.instance === null) return NotApplicable;
    const others = ctx.instance.otherNodes;
    if (others.length === 0) return Compliant;
    return halt(Phase.Refused, Reason.InstanceClaimedByOtherNode, [
      `instance ${ctx.instance.ref.instanceId} is also named by node ${others.join(', node ')}`,
    ]);
  },
};

export const identityConsistent: FenceRule = {
  id: 'identity-consistent',
  contract: "SAFETY.md rule 3: the node's addresses and CSI node IDs must not name another machine",
  check: (ctx) => {
    const result = comparison(ctx);
    if (result === null) return NotApplicable;
    return result.contradictions.length === 0
      ? Compliant
      : halt(Phase.Refused, Reason.IdentityMismatch, result.contradictions);
  },
};

export const identityCorroborated: FenceRule = {
  id: 'identity-corroborated',
  contract: 'SAFETY.md rule 3: before committing, a signal independent of the providerID names the machine',
  check: (ctx) => {
    if (committed(ctx) || ctx.instance === null) return NotApplicable;
    const identity = ctx.instance.identity;
    if (!identity.ok) {
      // Not knowing who the machine is, is not knowing: ask again, never guess.
      const { name, message } = identity.error;
      return waitOrExpire(
        ctx,
        stagePhase(ctx),
        PollSeconds.ProviderRetry,
        "The machine's identity could not be read; asking the provider again.",
        [`identity check failed: ${name}: ${message}`],
        identity.error.throttled ? Reason.ProviderThrottled : Reason.ProviderApiError,
      );
    }
    const result = comparison(ctx);
    if (result === null || result.agreements.length > 0) return Compliant;
    const machine = identity.value
      ? `${identity.value.instanceId} has addresses ${identity.value.privateIps.join(', ') || 'none'} and host names ${identity.value.hostnames.join(', ') || 'none'}`
      : `the provider does not know ${ctx.instance.ref.instanceId}`;
    const addresses = ctx.node?.addresses.map((a) => `${a.type} ${a.address}`).join(', ') || 'none';
    return halt(Phase.Refused, Reason.IdentityUnproven, [
      `node ${ctx.request.node} reports addresses ${addresses} and no CSI node ID naming the machine`,
      machine,
    ]);
  },
};
