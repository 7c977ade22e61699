/**
 * A run that ends before it released anything lifts the blocklist entries it added (SAFETY.md rule 1
 * still holds: nothing was released, so nothing depends on them). Without this, a run refused after its
 * storage fence (the node came back, an opt-out, the power-off deadline) would leave the node shut out
 * of Ceph until its entries expire, a week later, with no record naming them.
 *
 * Nothing can have been released while a proof the plan needs is missing (release waits for every
 * proof) and while no taint was recorded: only then is the lift safe. Entries listed before the run
 * committed are someone else's and stay.
 */
import { ActionKind } from '../action.js';
import { act, type Outcome } from '../decision.js';
import { Phase } from '../phases.js';
import { type FenceContext, proven } from './context.js';

/** This run's own blocklist entries that are listed now and may be lifted as it ends; none if unsafe. */
export function entriesToUnwind(ctx: FenceContext): readonly string[] {
  const { history, request } = ctx;
  if (request.dryRun || history.storageFenceRequestedAt === null || history.taintedAt !== null) return [];
  if (proven(ctx)) return [];
  const blocklist = ctx.observation.storage?.blocklist;
  if (!blocklist?.ok) return [];
  const before = new Set(history.storageBefore ?? []);
  const listed = [
    ...blocklist.value.found.map((e) => e.entry),
    ...blocklist.value.missing.filter((e) => e.until !== undefined).map((e) => e.entry),
  ];
  return [...new Set(listed)].filter((entry) => !before.has(entry));
}

/**
 * The step before a run that ends Refused or Failed: lift its own entries first, keeping the reason it
 * ends for. `null` when there is nothing to lift (the next step then ends the run as decided).
 */
export function unwindStorage(ctx: FenceContext, ending: Outcome): Outcome | null {
  if (ending.phase !== Phase.Refused && ending.phase !== Phase.Failed) return null;
  const entries = entriesToUnwind(ctx);
  if (entries.length === 0) return null;
  return act(
    Phase.StorageFence,
    { kind: ActionKind.StorageLift, node: ctx.request.node, entries },
    `The run ends before any release (${ending.message}); lifting the blocklist entries it added: ${entries.join(', ')}.`,
    ending.evidence,
    0,
    ending.reason,
  );
}
