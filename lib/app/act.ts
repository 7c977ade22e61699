import { type Action, ActionKind, type ObjectRef } from '../domain/action.js';
import { FENCER_ANNOTATION } from '../domain/node-marks.js';
import type { ComputeFencer } from '../ports/compute-fencer.js';
import type { FencerDeps } from './deps.js';

/** How many deletions run at once: enough to be quick, few enough not to flood the API server. */
const DELETE_CONCURRENCY = 5;

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

/**
 * Performs the one action a decision asked for, idempotently, and says what happened. Every
 * Kubernetes write is conditional (resourceVersion or uid); a stale decision fails instead of
 * doing harm. In a dry run only a provider dry-run power-off ever reaches here.
 */
export async function perform(
  deps: FencerDeps,
  action: Action,
  fencer: ComputeFencer | null,
): Promise<string> {
  switch (action.kind) {
    case ActionKind.PowerOff: {
      if (!fencer) throw new Error('power-off decided without a compute fencer for the node');
      const outcome = await fencer.powerOff(action.instance, {
        dryRun: action.dryRun,
        skipOsShutdown: action.skipOsShutdown,
        allowTerminate: action.allowTerminate,
      });
      switch (outcome.kind) {
        case 'requested':
          return `${action.instance.instanceId}: ${outcome.action} requested (was ${outcome.previousState})`;
        case 'already-off':
          return `${action.instance.instanceId}: already off (${outcome.state})`;
        case 'dry-run':
          return `${action.instance.instanceId}: dry run, ${outcome.action} ${outcome.wouldSucceed ? 'would succeed' : 'would fail'} (${outcome.detail})`;
        case 'not-stoppable':
          return `${action.instance.instanceId}: not stoppable (${outcome.detail})`;
      }
      break;
    }
    case ActionKind.Taint: {
      const record = { [FENCER_ANNOTATION.fenceRecord]: JSON.stringify(action.record) };
      const options = { dryRun: false, expectedResourceVersion: action.expectedResourceVersion };
      const result = await deps.cluster.addTaint(action.node, action.taint, record, options);
      if (result === 'added') return `${action.node}: out-of-service taint added`;
      // decide() asks to taint a node that already has the taint only when the taint is the
      // fencer's own from an earlier run: this run records itself as its owner. The write is
      // conditional on the node as observed, so a taint someone else put there since is never claimed.
      await deps.cluster.annotateNode(action.node, record, options);
      return `${action.node}: out-of-service taint already present (ours); fence record updated for this run`;
    }
    case ActionKind.RemoveTaint: {
      const result = await deps.cluster.removeTaint(
        action.node,
        action.taint.key,
        [FENCER_ANNOTATION.fenceRecord],
        {
          dryRun: false,
          expectedResourceVersion: action.expectedResourceVersion,
        },
      );
      return `${action.node}: out-of-service taint ${result}`;
    }
    case ActionKind.ForceDeletePods:
    case ActionKind.DeletePods: {
      const results = await inBatches(action.pods, DELETE_CONCURRENCY, (pod) =>
        deps.cluster.forceDeletePod(
          { namespace: pod.namespace ?? 'default', name: pod.name, uid: pod.uid },
          { dryRun: false },
        ),
      );
      return summarize('pods force-deleted', action.pods, results);
    }
    case ActionKind.DeleteVolumeAttachments: {
      const results = await inBatches(action.volumeAttachments, DELETE_CONCURRENCY, (va) =>
        deps.cluster.deleteVolumeAttachment({ name: va.name, uid: va.uid }, { dryRun: false }),
      );
      return summarize('VolumeAttachments deleted', action.volumeAttachments, results);
    }
  }
  return 'no action';
}
