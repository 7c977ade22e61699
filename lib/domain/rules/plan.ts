/**
 * What a real run would do from here, in words, for the dry-run report (SAFETY.md rule 8). It describes
 * the path the decision table would take, so a reader can compare the report with the real run.
 */
import { WATCH_EXPIRY_SECONDS } from '../blocklist.js';
import { OUT_OF_SERVICE_TAINT } from '../node-marks.js';
import { Strategy } from '../request.js';
import { mayDeleteVolumeAttachments } from '../strategy.js';
import { currentlyOff, type FenceContext } from './context.js';

const taintText = `${OUT_OF_SERVICE_TAINT.key}=${OUT_OF_SERVICE_TAINT.value}:${OUT_OF_SERVICE_TAINT.effect}`;

/** The storage fence's steps: blocklist the node's addresses, then confirm them listed. */
function storageSteps(ctx: FenceContext): string[] {
  if (!ctx.plan.storage) return [];
  const storage = ctx.observation.storage;
  const listing = storage?.blocklist.ok ? storage.blocklist.value : null;
  const entries = (listing?.expected ?? []).map((e) => e.entry);
  const what = entries.length > 0 ? entries.join(', ') : (storage?.addresses.join(', ') ?? 'its addresses');
  const images = ctx.observation.workload.volumeAttachments.filter((va) => va.image).length;
  return [
    `blocklist node ${ctx.request.node}'s storage clients on ${storage?.storage ?? 'the storage cluster'} (${what}), releasing its ${images} RBD images`,
    `wait up to ${ctx.request.limits.powerOffDeadlineSeconds}s for the blocklist to list every entry`,
  ];
}

/** The remaining steps of a real run, each a short imperative phrase. */
export function dryRunPlan(ctx: FenceContext): string[] {
  const { request, power, taints } = ctx;
  const { limits } = request;
  const steps: string[] = [...storageSteps(ctx)];
  if (ctx.plan.machine) {
    if (!currentlyOff(ctx)) {
      const terminate = request.allowTerminate && power?.lifecycle === 'spot-one-time';
      const how = `${terminate ? 'terminate' : 'stop'}${request.skipOsShutdown ? ', skipping the OS shutdown' : ''}`;
      steps.push(
        `power off instance ${ctx.ref?.instanceId} (${how}; ${power?.state ?? 'state unknown'} now)`,
      );
    }
    steps.push(
      `wait up to ${limits.powerOffDeadlineSeconds}s for the provider to report it stopped, terminated or gone`,
    );
  }
  if (ctx.plan.watch) {
    steps.push(
      `wait ${WATCH_EXPIRY_SECONDS}s more for the old watches on its RBD images to expire (no storage fence proves them)`,
    );
  }
  if (!taints?.releasing) steps.push(`taint node ${request.node} ${taintText} with a fence record`);
  if (taints?.staleRecord) steps.push('clear the stale fence record, whose taint is gone');
  if (ctx.strategy === Strategy.Legacy) {
    steps.push('force-delete its pods that hold volumes or are terminating');
    if (mayDeleteVolumeAttachments(ctx.strategy, ctx.observation.cluster.serverVersion)) {
      steps.push('delete its VolumeAttachments once those pods are gone');
    }
  } else if (request.accelerate) {
    steps.push('force-delete its terminating pods');
  }
  const tolerating = ctx.observation.workload.pods.filter(
    (pod) => pod.toleratesOutOfService && pod.claimNames.length > 0,
  );
  if (tolerating.length > 0 && ctx.strategy !== Strategy.Legacy) {
    const names = tolerating.map((pod) => `${pod.namespace}/${pod.name}`).join(', ');
    steps.push(
      request.forceDeleteTolerating
        ? `force-delete ${names}, which tolerate the taint and hold volumes`
        : `stop: ${names} tolerate the taint and hold volumes (only the opt-in to force-delete tolerating pods would remove them)`,
    );
  }
  const { pods, volumeAttachments } = ctx.observation.workload;
  steps.push(
    `wait up to ${limits.drainDeadlineSeconds}s for its ${pods.length} pods, ` +
      `${volumeAttachments.length} VolumeAttachments${ctx.plan.machine ? ' and attached disks' : ''} to clear`,
  );
  return steps;
}
