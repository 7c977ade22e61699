/**
 * Who may be fenced at all: opted-out and control-plane nodes (SAFETY.md rule 4), instances that are not
 * the cluster's (rule 3), and strategies the server cannot honour.
 */
import { Compliant, halt, NotApplicable } from '../decision.js';
import { PowerState } from '../instance.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { PollSeconds } from '../timing.js';
import { committed, type FenceContext, type FenceRule, stagePhase } from './context.js';
import { waitOrExpire } from './deadline.js';

export const notOptedOut: FenceRule = {
  id: 'not-opted-out',
  contract: 'SAFETY.md rule 4: nodes can opt out by annotation',
  check: (ctx) => {
    if (ctx.node === null) return NotApplicable;
    return ctx.node.optedOut
      ? halt(Phase.Refused, Reason.OptedOut, [`node ${ctx.node.name} carries the opt-out annotation`])
      : Compliant;
  },
};

const signs = (signals: readonly string[] | undefined): string =>
  signals !== undefined && signals.length > 0 ? ` (${signals.join(', ')})` : '';

export const controlPlaneAllowed: FenceRule = {
  id: 'control-plane-allowed',
  contract: 'SAFETY.md rule 4: control-plane nodes only when explicitly allowed',
  check: (ctx) => {
    if (ctx.node === null || !ctx.node.controlPlane) return NotApplicable;
    return ctx.request.limits.allowControlPlane
      ? Compliant
      : halt(Phase.Refused, Reason.ControlPlaneNotAllowed, [
          `node ${ctx.node.name} is a control-plane node${signs(ctx.node.controlPlaneSignals)}`,
        ]);
  },
};

const NOT_OWNED_REASON = {
  'wrong-cluster': Reason.InstanceNotOwned,
  'wrong-account': Reason.WrongAccount,
  'wrong-region': Reason.WrongRegion,
  'not-found': Reason.InstanceNotFound,
} as const;

/**
 * The instance the run resolved, proved the cluster's and committed to, and which the provider now does
 * not know in the same account and region, and reports gone: released (ECS forgets at once) or terminated
 * and forgotten (EC2, after about an hour). That is proof of off (SAFETY.md rule 1), not a change of owner.
 */
const goneAfterCommit = (ctx: FenceContext): boolean =>
  committed(ctx) &&
  ctx.instance !== null &&
  ctx.history.target?.instanceId === ctx.instance.ref.instanceId &&
  ctx.power !== null &&
  ctx.power.instanceId === ctx.instance.ref.instanceId &&
  ctx.power.state === PowerState.NotFound;

export const instanceOwned: FenceRule = {
  id: 'instance-owned',
  contract:
    'SAFETY.md rule 3: the instance carries the ownership tag, in the configured account and region; once committed, the same instance gone is off (SAFETY.md rule 1)',
  check: (ctx) => {
    if (ctx.instance === null) return NotApplicable;
    const ownership = ctx.instance.ownership;
    if (!ownership.ok) {
      // Not knowing is not owning: wait for an answer, never guess.
      const { name, message } = ownership.error;
      return waitOrExpire(
        ctx,
        stagePhase(ctx),
        PollSeconds.ProviderRetry,
        'Ownership could not be checked; asking the provider again.',
        [`ownership check failed: ${name}: ${message}`],
        ownership.error.throttled ? Reason.ProviderThrottled : Reason.ProviderApiError,
      );
    }
    const verdict = ownership.value;
    if (verdict.owned) return Compliant;
    if (verdict.reason === 'not-found' && goneAfterCommit(ctx)) return Compliant;
    return halt(Phase.Refused, NOT_OWNED_REASON[verdict.reason], [
      `${ctx.instance.ref.instanceId}: ${verdict.detail}`,
    ]);
  },
};

export const strategySupported: FenceRule = {
  id: 'strategy-supported',
  contract: 'SAFETY.md rule 5: the out-of-service taint needs Kubernetes >= 1.26',
  check: (ctx) => {
    if (ctx.strategy !== null) return Compliant;
    const version = ctx.observation.cluster.serverVersion;
    return halt(Phase.Refused, Reason.OutOfServiceUnsupported, [
      `strategy ${ctx.request.strategy} requested; server is ${version ? `${version.major}.${version.minor}` : 'unknown'}`,
    ]);
  },
};
