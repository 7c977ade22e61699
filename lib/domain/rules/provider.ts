/**
 * Errors judged once (safety.md rule 9): an adapter that judged a provider error permanent (credentials
 * rejected, a permission missing) has said all there is to say. Asking again until the deadline would
 * only hide the cause behind a timeout, so the run ends at once and names it. Nothing is read into the
 * fault: it is no evidence of off or on (safety.md rule 1).
 */
import { halt, NotApplicable } from '../decision.js';
import type { Fallible, ProviderFault } from '../observation.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { committed, type FenceRule } from './context.js';

const faultOf = (read: Fallible<unknown> | null): ProviderFault | null =>
  read && !read.ok ? read.error : null;

export const providerAcceptsCalls: FenceRule = {
  id: 'provider-accepts-calls',
  contract:
    'safety.md 9: a provider error the adapter judged permanent ends the run at once, with its own reason',
  check: (ctx) => {
    if (ctx.instance === null) return NotApplicable;
    const { ownership, power, identity, disks } = ctx.instance;
    const fault = [ownership, power, identity, disks].map(faultOf).find((f) => f?.permanent !== undefined);
    if (fault == null) return NotApplicable;
    const reason =
      fault.permanent === 'credentials' ? Reason.ProviderCredentialsRejected : Reason.ProviderCallRejected;
    return halt(committed(ctx) ? Phase.Failed : Phase.Refused, reason, [
      `${ctx.instance.ref.instanceId}: ${fault.name}: ${fault.message}`,
    ]);
  },
};
