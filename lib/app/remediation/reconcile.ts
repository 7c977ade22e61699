/**
 * medik8s Node Healthcheck's external remediation, served by the fencer: NHC creates a
 * `KubeFencerRemediation` per unhealthy node (named after it, annotated with its name, owned by the
 * NodeHealthCheck, its spec copied from the template's `spec.template.spec`) and deletes it once the
 * node is healthy. For each one, a reconcile keeps the fencer's finalizer on it, starts the node's
 * fencing run through the triggers' path (never a second one: start-run.ts names runs per incident),
 * and writes what the run and the node's fence record say into its conditions (`Processing`, then
 * `Succeeded` True once fenced, False with the reason when refused or failed, which NHC reads) and
 * Events. Once it is being deleted, the node is un-fenced (release.ts) before the finalizer goes.
 */
import { ValidationError } from '../../domain/errors.js';
import {
  NHC_ANNOTATION,
  REMEDIATION_FINALIZER,
  type RemediationObject,
  type RemediationSpec,
  type RemediationStatus,
} from '../../ports/remediations.js';
import { mapBounded } from '../shared/bounded.js';
import type { RunProgress } from './conditions.js';
import {
  DEFAULT_UNFENCE_RETRY_SECONDS,
  type RemediationDeps,
  type RemediationOutcome,
  type RemediationReport,
  type RemediationSettings,
} from './deps.js';
import { NO_FENCE, readNodeFence } from './node-fence.js';
import { remediationProgress } from './progress.js';
import { releaseRemediation } from './release.js';
import { remediationRequest } from './request.js';
import { actionOf, type Written, writeRemediation } from './write.js';

/** Remediations reconciled at once (docs/architecture.md#bounded-fan-outs). */
const IN_FLIGHT = 4;
/** How soon to look again at a remediation whose run is going. */
export const RUN_REQUEUE_SECONDS = 10;

/** The node a remediation is for: NHC's annotation, else the object's name (NHC's own rule). */
export const nodeNameOf = (object: RemediationObject): string =>
  object.annotations[NHC_ANNOTATION.nodeName] || object.name;

/** The spec, or why it cannot be read. */
function parsedSpec(deps: RemediationDeps, object: RemediationObject): RemediationSpec | ValidationError {
  try {
    return deps.codec.spec(object.spec);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
}

const runNameOf = (progress: RunProgress | null, previous: RemediationStatus | null): string | undefined =>
  progress?.kind === 'going' || progress?.kind === 'ended' ? progress.runName : previous?.runName;

/** A remediation that is not being deleted: finalizer, run, conditions. */
async function reconcileLive(
  deps: RemediationDeps,
  settings: RemediationSettings,
  given: RemediationObject,
  eventId: string,
): Promise<Written> {
  const nodeName = nodeNameOf(given);
  const previous = deps.codec.status(given.status);
  const spec = parsedSpec(deps, given);
  if (spec instanceof ValidationError) {
    const progress = { kind: 'invalid-spec', message: spec.message } as const;
    return writeRemediation(deps, given, previous, { node: nodeName, progress, fence: NO_FENCE });
  }
  const object = given.finalizers.includes(REMEDIATION_FINALIZER)
    ? given
    : await deps.remediations.addFinalizer(given, REMEDIATION_FINALIZER);
  const node = await deps.triggers.cluster.getNode(nodeName);
  if (node === null) {
    const progress = { kind: 'node-not-found', node: nodeName } as const;
    return writeRemediation(deps, object, previous, { node: nodeName, progress, fence: NO_FENCE });
  }
  const fence = await readNodeFence(deps.fencer, node);
  const request = remediationRequest(settings.requestDefaults, spec, {
    node: node.name,
    cluster: settings.cluster,
  });
  const { progress, started } = await remediationProgress(deps, object, previous, request, {
    node,
    fence,
    eventId,
  });
  const runName = runNameOf(progress, previous);
  return writeRemediation(deps, object, previous, {
    node: nodeName,
    progress,
    fence,
    ...(runName ? { runName } : {}),
    ...(started && runName ? { startedRun: runName } : {}),
  });
}

/** A remediation being deleted: un-fence, then let it go. */
async function reconcileDeleted(
  deps: RemediationDeps,
  settings: RemediationSettings,
  object: RemediationObject,
): Promise<Written | null> {
  if (!object.finalizers.includes(REMEDIATION_FINALIZER)) return null;
  const nodeName = nodeNameOf(object);
  const previous = deps.codec.status(object.status);
  const spec = parsedSpec(deps, object);
  const dryRun =
    settings.requestDefaults.dryRun || (!(spec instanceof ValidationError) && spec.dryRun === true);
  const node = await deps.triggers.cluster.getNode(nodeName);
  const fence = node ? await readNodeFence(deps.fencer, node) : NO_FENCE;
  const release = await releaseRemediation(deps, settings, { previous, node, fence, dryRun });
  const after = release.removeFinalizer && node ? await readNodeFence(deps.fencer, node) : fence;
  const attempt = release.attempt ?? previous?.unfenceAttempt;
  const written = await writeRemediation(deps, object, previous, {
    node: nodeName,
    progress: null,
    fence: after,
    unfence: release.unfence,
    ...(previous?.runName ? { runName: previous.runName } : {}),
    ...(attempt ? { unfenceAttempt: attempt } : {}),
  });
  if (release.removeFinalizer) await deps.remediations.removeFinalizer(object, REMEDIATION_FINALIZER);
  return { ...written, released: release.removeFinalizer };
}

/** One remediation; an error is an outcome, so one broken object does not hold up the others. */
async function reconcileOne(
  deps: RemediationDeps,
  settings: RemediationSettings,
  object: RemediationObject,
  eventId: string,
): Promise<RemediationOutcome> {
  const base = { namespace: object.namespace, name: object.name, node: nodeNameOf(object) };
  try {
    const written = object.deleting
      ? await reconcileDeleted(deps, settings, object)
      : await reconcileLive(deps, settings, object, eventId);
    if (written === null) return { ...base, action: 'released' };
    return {
      ...base,
      action: actionOf(written),
      ...(written.status.lastReason ? { reason: written.status.lastReason } : {}),
      ...(written.status.runName ? { runName: written.status.runName } : {}),
    };
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    deps.fencer.log.error('remediation not reconciled', { ...base, error: (error as Error)?.name, message });
    return { ...base, action: 'error', error: message.slice(0, 512) };
  }
}

/** How soon to come back: a run going, an un-fence waiting, an error; none when all is settled. */
function requeueAfter(outcomes: readonly RemediationOutcome[], settings: RemediationSettings) {
  const waits = outcomes.flatMap((o) => {
    if (o.action === 'started' || o.action === 'waiting' || o.action === 'error')
      return [RUN_REQUEUE_SECONDS];
    if (o.action === 'unfence-refused')
      return [settings.unfenceRetrySeconds ?? DEFAULT_UNFENCE_RETRY_SECONDS];
    return [];
  });
  return waits.length > 0 ? Math.min(...waits) : undefined;
}

/**
 * Reconciles every KubeFencerRemediation once. `eventId` names this reconcile in the runs it starts
 * (their trigger record). Call it on every change of a remediation, and again after
 * `requeueAfterSeconds` when the report says so.
 */
export async function reconcileRemediations(
  deps: RemediationDeps,
  settings: RemediationSettings,
  eventId: string,
): Promise<RemediationReport> {
  const objects = await deps.remediations.list();
  const outcomes = await mapBounded(objects, IN_FLIGHT, (object) =>
    reconcileOne(deps, settings, object, eventId),
  );
  const requeue = requeueAfter(outcomes, settings);
  return { outcomes, ...(requeue === undefined ? {} : { requeueAfterSeconds: requeue }) };
}
