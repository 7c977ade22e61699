/**
 * Never fence a live node (SAFETY.md rule 2): once the run has decided, a machine started again is a
 * machine that may be alive, and the run stops. A launch time is read at the precision its provider
 * reports it (`launch-time.ts`): a start known only to the minute of the decision may have been after it.
 * A launch time later than the one the provider reported when the run decided is a new start too, read
 * on the provider's own clock, so a fencer whose clock runs fast cannot miss it.
 */
import { Compliant, halt, NotApplicable } from '../decision.js';
import { PowerState } from '../instance.js';
import { possiblyLaunchedAfter } from '../launch-time.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { instant } from '../time.js';
import type { FenceRule } from './context.js';

/** States that, once the instance was proven off, mean it was started again. */
const STARTED_STATES: ReadonlySet<PowerState> = new Set<PowerState>([
  PowerState.Pending,
  PowerState.Running,
  PowerState.Stopping,
]);

const launched = (launchTime: string | undefined, precision: string | undefined): string =>
  precision === undefined || precision === 'millisecond'
    ? `${launchTime}, after`
    : `${launchTime} (to the ${precision}), possibly after`;

export const instanceNotStartedAgain: FenceRule = {
  id: 'instance-not-started-again',
  contract: 'SAFETY.md rule 2: stop if the instance was started again after the decision',
  check: (ctx) => {
    if (ctx.decidedAt === null || ctx.power === null) return NotApplicable;
    const { launchTime, launchTimePrecision, state } = ctx.power;
    const launchedSince = possiblyLaunchedAfter(ctx.power, ctx.decidedAt);
    // On the provider's own clock: another launch time than the one it reported at the decision.
    const committedLaunch = ctx.history.target?.launchTime;
    const relaunched =
      committedLaunch !== undefined &&
      launchTime !== undefined &&
      ctx.power.instanceId === ctx.history.target?.instanceId &&
      instant(launchTime, 'launchTime') > instant(committedLaunch, 'target.launchTime');
    const runningSinceProof = ctx.proof !== null && STARTED_STATES.has(state);
    if (!launchedSince && !relaunched && !runningSinceProof) return Compliant;
    return halt(Phase.Refused, Reason.InstanceStartedAgain, [
      launchedSince
        ? `launched ${launched(launchTime, launchTimePrecision)} the decision at ${ctx.history.decidedToFenceAt}`
        : relaunched
          ? `launched ${launchTime}, the provider reported ${committedLaunch} when the run decided`
          : `${state} after it was proven off at ${ctx.proof?.observedAt}`,
    ]);
  },
};
