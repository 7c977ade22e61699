/**
 * Proof before release (SAFETY.md rule 1), first half: commit to fencing, force the instance off, and wait
 * for a provider observation made after the decision that shows it off. Dry run stops at the commitment:
 * without a real power-off there can be no proof, so everything after it can only be reported.
 */
import { ActionKind, type PowerOffAction } from '../action.js';
import { act, Compliant, halt, NotApplicable, wait } from '../decision.js';
import { type InstanceRef, PowerState } from '../instance.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { instant } from '../time.js';
import { PollSeconds } from '../timing.js';
import { committed, currentlyOff, type FenceContext, type FenceRule, stagePhase } from './context.js';
import { expired, waitOrExpire } from './deadline.js';
import { dryRunPlan } from './plan.js';
import { storageFence } from './storage.js';

const powerOff = (ctx: FenceContext, instance: InstanceRef): PowerOffAction => ({
  kind: ActionKind.PowerOff,
  instance,
  dryRun: ctx.request.dryRun,
  skipOsShutdown: ctx.request.skipOsShutdown,
  allowTerminate: ctx.request.allowTerminate,
});

export const instanceStoppable: FenceRule = {
  id: 'instance-stoppable',
  contract: 'SAFETY.md rule 1: one-time Spot instances cannot be stopped, only terminated',
  check: (ctx) => {
    if (!ctx.plan.machine || ctx.power === null || ctx.proof !== null || currentlyOff(ctx))
      return NotApplicable;
    if (ctx.power.lifecycle !== 'spot-one-time' || ctx.request.allowTerminate) return Compliant;
    return halt(Phase.Refused, Reason.InstanceNotStoppable, [
      `${ctx.power.instanceId} is a one-time Spot instance`,
    ]);
  },
};

export const powerObserved: FenceRule = {
  id: 'power-observed',
  contract: 'SAFETY.md rule 1: an API error or an unknown state is not evidence of anything',
  check: (ctx) => {
    // A node fenced at the storage layer only does not wait on its machine's power state.
    if (ctx.instance === null || !ctx.plan.machine) return NotApplicable;
    const power = ctx.instance.power;
    if (power.ok && power.value.state !== PowerState.Unknown) return Compliant;
    const fault = power.ok
      ? `provider reported an unknown state (${power.value.providerState ?? 'no name'})`
      : `${power.error.name}: ${power.error.message}`;
    const throttled = !power.ok && power.error.throttled === true;
    return waitOrExpire(
      ctx,
      stagePhase(ctx),
      PollSeconds.ProviderRetry,
      throttled
        ? 'The provider is throttling; asking again after a pause.'
        : 'The power state is not known; asking the provider again.',
      [fault],
      throttled ? Reason.ProviderThrottled : Reason.ProviderApiError,
    );
  },
};

export const dryRunReport: FenceRule = {
  id: 'dry-run-report',
  contract: 'SAFETY.md rule 8: dry run changes nothing and says what would have happened',
  check: (ctx) => {
    if (!ctx.request.dryRun || (ctx.ref === null && !ctx.plan.storage)) return NotApplicable;
    // The provider's own dry run of the first mutating call a real run would make.
    const action = ctx.plan.storage
      ? storageFence(ctx)
      : ctx.ref === null || currentlyOff(ctx)
        ? null
        : powerOff(ctx, ctx.ref);
    const plan = dryRunPlan(ctx);
    return act(Phase.DryRunReported, action, `Dry run: would ${plan.join(', then ')}.`, plan);
  },
};

export const commit: FenceRule = {
  id: 'commit',
  contract: 'SAFETY.md rule 1: every check passed; decide to fence and force the instance off',
  check: (ctx) => {
    if (committed(ctx)) return NotApplicable;
    // Storage first: it isolates the node's images at once, whether or not the machine goes off.
    if (ctx.plan.storage) {
      if (ctx.blocklist?.confirmed) {
        return wait(
          Phase.StorageFence,
          0,
          'Decided to fence; the blocklist already holds, confirming with a fresh look.',
        );
      }
      return act(
        Phase.StorageFence,
        storageFence(ctx),
        "Decided to fence; fencing the node's storage clients.",
      );
    }
    if (ctx.ref === null) return NotApplicable;
    if (currentlyOff(ctx)) {
      // Already off, but this observation predates the decision; only a later one is proof.
      return wait(
        Phase.ConfirmOff,
        0,
        'Decided to fence; the instance already looks off, confirming with a fresh observation.',
      );
    }
    if (ctx.power?.state === PowerState.ShuttingDown) {
      // Terminating already: no call can make it go faster, and a stop call would be refused.
      return wait(
        Phase.ConfirmOff,
        PollSeconds.ConfirmOff,
        'Decided to fence; the instance is already shutting down, waiting for it to be terminated.',
      );
    }
    return act(
      Phase.PowerOff,
      powerOff(ctx, ctx.ref),
      'Decided to fence; forcing the instance off.',
      [],
      PollSeconds.ConfirmOff,
    );
  },
};

export const confirmOff: FenceRule = {
  id: 'confirm-off',
  contract: 'SAFETY.md rule 1: wait for stopped/terminated/not-found observed after the decision',
  check: (ctx) => {
    if (!committed(ctx) || !ctx.plan.machine || ctx.proof !== null || ctx.ref === null) return NotApplicable;
    // With a storage fence too, the machine comes second.
    if (ctx.plan.storage && ctx.storageProof === null) return NotApplicable;
    const failure = expired(ctx);
    if (failure !== null) return failure;
    if (currentlyOff(ctx)) {
      return wait(
        Phase.ConfirmOff,
        1,
        'The instance looks off, but not in an observation made after the decision.',
      );
    }
    const requestedAt = ctx.history.powerOffRequestedAt;
    const recentlyRequested =
      requestedAt !== null &&
      ctx.now - instant(requestedAt, 'powerOffRequestedAt') < PollSeconds.PowerOffRetry * 1000;
    if (recentlyRequested || ctx.power?.state === PowerState.ShuttingDown) {
      return wait(
        Phase.ConfirmOff,
        PollSeconds.ConfirmOff,
        `Waiting for the instance to be off (now ${ctx.power?.state}).`,
      );
    }
    // Never requested (a crash before the call) or not acted on: ask again; the provider call is idempotent.
    return act(
      Phase.PowerOff,
      powerOff(ctx, ctx.ref),
      'The instance is not off yet; requesting the power-off again.',
      [],
      PollSeconds.ConfirmOff,
    );
  },
};
