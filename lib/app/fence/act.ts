import { type Action, ActionKind, type ObjectRef } from '../../domain/action.js';
import type { PowerEvidence } from '../../domain/instance.js';
import { FENCER_ANNOTATION } from '../../domain/node-marks.js';
import { Reason } from '../../domain/reasons.js';
import type { ComputeFencer } from '../../ports/compute-fencer.js';
import type { FencerDeps } from '../shared/deps.js';
import { toPortTaint } from '../shared/node-marks.js';

/** How many deletions run at once: enough to be quick, few enough not to flood the API server. */
const DELETE_CONCURRENCY = 5;

/** What performing an action did, and whether it turned out impossible (a reason the run must end). */
export interface ActionResult {
  readonly summary: string;
  /** The provider refused in a way no retry can change (stop protection, a one-time Spot instance). */
  readonly blocked?: { readonly reason: Reason; readonly detail: string };
}

async function inBatches<T>(
  items: readonly T[],
  size: number,
  run: (item: T) => Promise<string>,
): Promise<string[]> {
  const results: string[] = [];
  for (let i = 0; i < items.length; i += size) {
    results.push(...(await Promise.all(items.slice(i, i + size).map(run))));
  }
  return results;
}

const summarize = (what: string, refs: readonly ObjectRef[], results: readonly string[]): string => {
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r, (counts.get(r) ?? 0) + 1);
  const detail = [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
  return `${what}: ${refs.map((r) => (r.namespace ? `${r.namespace}/${r.name}` : r.name)).join(', ')} (${detail || 'none'})`;
};

/** Provider calls of one action end within this many ms, retries included. */
export const ACTION_BUDGET_MS = 20_000;

async function powerOff(
  action: Extract<Action, { kind: 'power-off' }>,
  fencer: ComputeFencer | null,
  seen: PowerEvidence | null,
): Promise<ActionResult> {
  if (!fencer) throw new Error('power-off decided without a compute fencer for the node');
  const id = action.instance.instanceId;
  // The step quotes its own reading of the machine, never the provider's reply about the past.
  const before = seen ? `; it was ${seen.state} when observed at ${seen.observedAt}` : '';
  const outcome = await fencer.powerOff(action.instance, {
    dryRun: action.dryRun,
    skipOsShutdown: action.skipOsShutdown,
    allowTerminate: action.allowTerminate,
    signal: AbortSignal.timeout(ACTION_BUDGET_MS),
  });
  switch (outcome.kind) {
    case 'requested':
      return { summary: `${id}: ${outcome.action} requested${before}` };
    case 'already-off':
      return { summary: `${id}: already off (${outcome.state}), no call made` };
    case 'dry-run':
      return {
        summary: `${id}: dry run, ${outcome.action} ${outcome.wouldSucceed ? 'would succeed' : 'would fail'} (${outcome.detail})`,
      };
    case 'not-stoppable':
      return {
        summary: `${id}: not stoppable (${outcome.detail})`,
        blocked: { reason: Reason.InstanceNotStoppable, detail: outcome.detail },
      };
  }
}

/** The deployment's storage fencer (one storage system per cluster). */
const storageFencerOf = (deps: FencerDeps) => {
  const fencer = deps.storage?.[0];
  if (!fencer) throw new Error('a storage fence was decided without a storage fencer');
  return fencer;
};

async function storageFence(
  deps: FencerDeps,
  action: Extract<Action, { kind: 'storage-fence' }>,
): Promise<ActionResult> {
  const target = {
    node: action.node,
    addresses: action.addresses,
    declared: action.declared,
    ...(action.witnessed ? { witnessed: action.witnessed } : {}),
  };
  const outcome = await storageFencerOf(deps).fence(target, {
    dryRun: action.dryRun,
    signal: AbortSignal.timeout(ACTION_BUDGET_MS),
  });
  switch (outcome.kind) {
    case 'fenced':
      return {
        summary: `${action.node}: blocklisted ${outcome.added.map((e) => e.entry).join(', ') || 'nothing new'}${outcome.alreadyPresent.length > 0 ? `; already listed ${outcome.alreadyPresent.map((e) => e.entry).join(', ')}` : ''}; confirmed=${outcome.evidence.confirmed}`,
      };
    case 'already-fenced':
      return { summary: `${action.node}: every blocklist entry already listed` };
    case 'dry-run':
      return {
        summary: `${action.node}: dry run, would blocklist ${outcome.wouldAdd.map((e) => e.entry).join(', ') || 'nothing'}`,
      };
  }
}

async function storageLift(
  deps: FencerDeps,
  action: Extract<Action, { kind: 'storage-lift' }>,
): Promise<ActionResult> {
  const outcome = await storageFencerOf(deps).lift(
    { node: action.node, entries: action.entries },
    { dryRun: false, signal: AbortSignal.timeout(ACTION_BUDGET_MS) },
  );
  switch (outcome.kind) {
    case 'lifted':
      return { summary: `${action.node}: lifted ${outcome.removed.join(', ')}` };
    case 'nothing-to-lift':
      return { summary: `${action.node}: nothing to lift (${outcome.detail})` };
    case 'dry-run':
      return { summary: `${action.node}: dry run, would lift ${outcome.wouldRemove.join(', ')}` };
  }
}

async function taint(deps: FencerDeps, action: Extract<Action, { kind: 'taint' }>): Promise<ActionResult> {
  const record = { [FENCER_ANNOTATION.fenceRecord]: JSON.stringify(action.record) };
  const options = { dryRun: false, expectedResourceVersion: action.expectedResourceVersion };
  const result = await deps.cluster.addTaint(action.node, toPortTaint(action.taint), record, options);
  if (result === 'added') return { summary: `${action.node}: out-of-service taint added` };
  // decide() asks to taint a node that already has the taint only when it is exactly the fencer's
  // own from an earlier run: this run records itself as its owner. The write is conditional on the
  // node as observed, so a taint someone else put there since is never claimed.
  await deps.cluster.annotateNode(action.node, record, options);
  return {
    summary: `${action.node}: the fencer's taint is already present; fence record updated for this run`,
  };
}

async function removeTaint(
  deps: FencerDeps,
  action: Extract<Action, { kind: 'remove-taint' }>,
): Promise<ActionResult> {
  const result = await deps.cluster.removeTaint(
    action.node,
    toPortTaint(action.taint),
    [FENCER_ANNOTATION.fenceRecord],
    { dryRun: false, expectedResourceVersion: action.expectedResourceVersion },
  );
  return { summary: `${action.node}: the fencer's out-of-service taint ${result}` };
}

async function clearFenceRecord(
  deps: FencerDeps,
  action: Extract<Action, { kind: 'clear-fence-record' }>,
): Promise<ActionResult> {
  await deps.cluster.annotateNode(
    action.node,
    { [FENCER_ANNOTATION.fenceRecord]: null },
    { dryRun: false, expectedResourceVersion: action.expectedResourceVersion },
  );
  return { summary: `${action.node}: stale fence record of run ${action.fenceRunId} cleared` };
}

async function deletePods(
  deps: FencerDeps,
  action: Extract<Action, { kind: 'force-delete-pods' | 'delete-pods' }>,
): Promise<ActionResult> {
  const results = await inBatches(action.pods, DELETE_CONCURRENCY, (pod) =>
    deps.cluster.forceDeletePod(
      { namespace: pod.namespace ?? 'default', name: pod.name, uid: pod.uid },
      { dryRun: false },
    ),
  );
  return { summary: summarize('pods force-deleted', action.pods, results) };
}

async function deleteVolumeAttachments(
  deps: FencerDeps,
  action: Extract<Action, { kind: 'delete-volume-attachments' }>,
): Promise<ActionResult> {
  const results = await inBatches(action.volumeAttachments, DELETE_CONCURRENCY, (va) =>
    deps.cluster.deleteVolumeAttachment({ name: va.name, uid: va.uid }, { dryRun: false }),
  );
  return { summary: summarize('VolumeAttachments deleted', action.volumeAttachments, results) };
}

/**
 * Performs the one action a decision asked for, idempotently, and says what happened. Every
 * Kubernetes write is conditional (resourceVersion or uid); a stale decision fails instead of
 * doing harm. In a dry run only a provider dry-run power-off ever reaches here. `seen` is the
 * machine's power state as the step observed it, for the record.
 */
export async function perform(
  deps: FencerDeps,
  action: Action,
  fencer: ComputeFencer | null,
  seen: PowerEvidence | null = null,
): Promise<ActionResult> {
  switch (action.kind) {
    case ActionKind.PowerOff:
      return powerOff(action, fencer, seen);
    case ActionKind.Taint:
      return taint(deps, action);
    case ActionKind.RemoveTaint:
      return removeTaint(deps, action);
    case ActionKind.ClearFenceRecord:
      return clearFenceRecord(deps, action);
    case ActionKind.ForceDeletePods:
    case ActionKind.DeletePods:
      return deletePods(deps, action);
    case ActionKind.StorageFence:
      return storageFence(deps, action);
    case ActionKind.StorageLift:
      return storageLift(deps, action);
    case ActionKind.DeleteVolumeAttachments:
      return deleteVolumeAttachments(deps, action);
  }
}
