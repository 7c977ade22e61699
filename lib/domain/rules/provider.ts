/**
 * Errors judged once (SAFETY.md rule 9): an adapter that judged a provider error permanent (credentials
 * rejected, a permission missing) has said all there is to say. Asking again until the deadline would
 * only hide the cause behind a timeout, so the run ends at once and names it. Nothing is read into the
 * fault: it is no evidence of off or on (SAFETY.md rule 1).
 */
import { halt, NotApplicable } from '../decision.js';
import type { Fallible, ObservedInstance, ProviderFault } from '../observation.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { committed, type FenceRule } from './context.js';
import type { UnfenceRule } from './unfence-context.js';

const faultOf = (read: Fallible<unknown> | null): ProviderFault | null =>
  read && !read.ok ? read.error : null;

/** The first fault of the machine's reads that the adapter judged permanent. */
const permanentFault = (instance: Extract<ObservedInstance, { resolved: true }>): ProviderFault | null => {
  const { ownership, power, identity, disks } = instance;
  return [ownership, power, identity, disks].map(faultOf).find((f) => f?.permanent !== undefined) ?? null;
};

const reasonOf = (fault: ProviderFault): Reason =>
  fault.permanent === 'credentials' ? Reason.ProviderCredentialsRejected : Reason.ProviderCallRejected;

export const providerAcceptsCalls: FenceRule = {
  id: 'provider-accepts-calls',
  contract:
    'SAFETY.md rule 9: a provider error the adapter judged permanent ends the run at once, with its own reason',
  check: (ctx) => {
    if (ctx.instance === null) return NotApplicable;
    const fault = permanentFault(ctx.instance);
    if (fault === null) return NotApplicable;
    return halt(committed(ctx) ? Phase.Failed : Phase.Refused, reasonOf(fault), [
      `${ctx.instance.ref.instanceId}: ${fault.name}: ${fault.message}`,
    ]);
  },
};

/** The same for an un-fence: the taint stays, and the run says at once why it cannot go on. */
export const unfenceProviderAcceptsCalls: UnfenceRule = {
  id: 'unfence-provider-accepts-calls',
  contract:
    'SAFETY.md rule 9: a provider error the adapter judged permanent ends the un-fence at once, taint kept',
  check: (ctx) => {
    if (ctx.instance === null) return NotApplicable;
    const fault = permanentFault(ctx.instance);
    if (fault === null) return NotApplicable;
    return halt(Phase.Refused, reasonOf(fault), [
      `${ctx.instance.ref.instanceId}: ${fault.name}: ${fault.message}`,
    ]);
  },
};
